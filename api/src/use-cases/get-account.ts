import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { AccountRecord, AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';

/** An account with its API wallet balance, as the operator API shows it. */
export interface AccountWithBalance {
  readonly account: AccountRecord;
  /** µIRT, from the billing module's wallet. */
  readonly balanceMicros: bigint;
}

/** Reads the wallet balance of an account (the billing module owns wallets). */
export type BalanceOf = (accountId: string) => Promise<bigint>;

export interface GetAccountDeps {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly balanceOf: BalanceOf;
}

/** One account with its balance; 404 `account_not_found` when there is none. */
export async function getAccount(
  deps: GetAccountDeps,
  input: { accountId: string },
): Promise<AccountWithBalance> {
  const account = await deps.accounts.findById(input.accountId);
  if (account === null) throw accountErrors.accountNotFound(input.accountId);
  return { account, balanceMicros: await deps.balanceOf(account.id) };
}
