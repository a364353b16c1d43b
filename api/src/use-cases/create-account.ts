import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import { parseAccountName, parseEmail } from '../../../shared/src/accounts/account-input.ts';
import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type { AccountWithBalance, BalanceOf } from './get-account.ts';

export interface CreateAccountDeps {
  readonly accounts: Pick<AccountsRepository, 'create'>;
  readonly balanceOf: BalanceOf;
  readonly clock: () => Date;
}

export interface CreateAccountInput {
  readonly email: string;
  readonly name?: string | null;
}

/** Opens an active account; 409 `account_exists` when the email is taken, 400 on a bad field. */
export async function createAccount(
  deps: CreateAccountDeps,
  input: CreateAccountInput,
): Promise<AccountWithBalance> {
  const email = parseEmail(input.email);
  const name = parseAccountName(input.name);
  const account = await deps.accounts.create({ email, name }, deps.clock());
  if (account === 'email_taken') throw accountErrors.accountExists();
  return { account, balanceMicros: await deps.balanceOf(account.id) };
}
