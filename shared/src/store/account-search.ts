import type { AccountPage, AccountRecord } from '../accounts/accounts.repository.ts';

/**
 * Lower-cases ASCII letters only. Both stores compare this way (SQLite's lower() and the
 * MongoDB-wire server of the tests fold ASCII only), so a search finds the same accounts on either.
 */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * A page of at most `limit` accounts out of `found`, which was read with one more (ordered by
 * email): that extra one tells whether a next page exists; the cursor is the page's last email.
 */
export function pageOf(found: readonly AccountRecord[], limit: number): AccountPage {
  if (found.length <= limit) return { accounts: [...found], nextCursor: null };
  const accounts = found.slice(0, limit);
  return { accounts, nextCursor: accounts.at(-1)?.email ?? null };
}
