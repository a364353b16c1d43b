import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import { parseAccountStatus } from '../../../shared/src/accounts/account-input.ts';
import type { AccountStatus, AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import type { AccountWithBalance, BalanceOf } from './get-account.ts';

export interface UpdateAccountDeps {
  readonly accounts: Pick<AccountsRepository, 'setStatus'>;
  readonly keyCache: Pick<KeyCache, 'invalidateAccount'>;
  readonly balanceOf: BalanceOf;
  readonly clock: () => Date;
}

export interface UpdateAccountInput {
  readonly accountId: string;
  readonly status: AccountStatus;
}

/**
 * Activates or deactivates an account. Every key of the account is dropped from every replica's
 * key cache, so an inactive account's keys stop working at once (spec, check 2).
 */
export async function updateAccount(
  deps: UpdateAccountDeps,
  input: UpdateAccountInput,
): Promise<AccountWithBalance> {
  const status = parseAccountStatus(input.status);
  const account = await deps.accounts.setStatus(input.accountId, status, deps.clock());
  if (account === null) throw accountErrors.accountNotFound(input.accountId);
  await deps.keyCache.invalidateAccount(account.id);
  return { account, balanceMicros: await deps.balanceOf(account.id) };
}
