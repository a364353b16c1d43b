import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { ApiKeyRecord, ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';

/**
 * The key, when it belongs to the account and is not deleted; otherwise the same 404
 * `key_not_found` as for an id that does not exist, so a holder learns nothing of others' keys.
 * (A key never changes account, so the answer stays true for the change that follows.)
 */
export async function ensureOwnKey(
  deps: { readonly keys: Pick<ApiKeysRepository, 'findById'> },
  input: { keyId: string; accountId: string },
): Promise<ApiKeyRecord> {
  const key = await deps.keys.findById(input.keyId);
  if (key === null || key.deletedAt !== null || key.accountId !== input.accountId) {
    throw accountErrors.keyNotFound(input.keyId);
  }
  return key;
}
