import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type { ApiKeyRecord, ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';

export interface ListKeysDeps {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly keys: Pick<ApiKeysRepository, 'listByAccount'>;
}

/** The account's keys that are not deleted, oldest first; 404 `account_not_found`. */
export async function listKeys(deps: ListKeysDeps, input: { accountId: string }): Promise<ApiKeyRecord[]> {
  const account = await deps.accounts.findById(input.accountId);
  if (account === null) throw accountErrors.accountNotFound(input.accountId);
  return deps.keys.listByAccount(account.id);
}
