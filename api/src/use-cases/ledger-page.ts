import type { Billing, LedgerEntry } from '../../../shared/src/billing/billing.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';

export interface LedgerPageInput {
  readonly accountId: string;
  readonly limit: number;
  /** `next` of the previous page. */
  readonly before?: string;
}

export interface LedgerPage {
  readonly entries: LedgerEntry[];
  /** The cursor of the next (older) page; null on the last one. */
  readonly next: string | null;
}

/**
 * A page of an account's ledger, newest first. The cursor is opaque to clients (the creation time
 * and id of the page's last entry); it only positions within the account's own entries. 400 for a
 * cursor this did not make.
 */
export async function ledgerPage(
  deps: { readonly billing: Pick<Billing, 'listLedger'> },
  input: LedgerPageInput,
): Promise<LedgerPage> {
  const before = input.before === undefined ? undefined : decodeCursor(input.before);
  // One more than asked tells whether an older page exists.
  const found = await deps.billing.listLedger(input.accountId, { limit: input.limit + 1, before });
  const entries = found.slice(0, input.limit);
  const last = entries.at(-1);
  return { entries, next: found.length > input.limit && last !== undefined ? encodeCursor(last) : null };
}

function encodeCursor(entry: LedgerEntry): string {
  return Buffer.from(`${entry.createdAt.getTime()}:${entry.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15}):(.+)$/s.exec(text);
  if (match === null) throw errors.invalidRequest('Invalid query `before`: not a cursor of this ledger.');
  return { createdAt: new Date(Number(match[1])), id: match[2] as string };
}
