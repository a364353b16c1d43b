import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { AccountWithBalance, BalanceOf } from './get-account.ts';

export interface SearchAccountsDeps {
  readonly accounts: Pick<AccountsRepository, 'search'>;
  readonly balanceOf: BalanceOf;
}

export interface SearchAccountsInput {
  /** Part of an email or a name ('' for every account). */
  readonly query: string;
  readonly limit: number;
  readonly cursor?: string;
}

/**
 * Operators' account search: accounts whose email or name contains the query (ASCII letters in any
 * case), by email, a page at a time, each with its balance. The cursor is opaque to clients.
 */
export async function searchAccounts(
  deps: SearchAccountsDeps,
  input: SearchAccountsInput,
): Promise<{ accounts: AccountWithBalance[]; next: string | null }> {
  const page = await deps.accounts.search({
    query: input.query,
    limit: input.limit,
    cursor: input.cursor === undefined ? undefined : decodeCursor(input.cursor),
  });
  const accounts = await Promise.all(
    page.accounts.map(async (account) => ({ account, balanceMicros: await deps.balanceOf(account.id) })),
  );
  return {
    accounts,
    next: page.nextCursor === null ? null : Buffer.from(page.nextCursor).toString('base64url'),
  };
}

function decodeCursor(cursor: string): string {
  const email = Buffer.from(cursor, 'base64url').toString('utf8');
  if (email === '' || !email.includes('@')) {
    throw errors.invalidRequest('Invalid query `cursor`: not a cursor of this search.');
  }
  return email;
}
