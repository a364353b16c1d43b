import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';

export interface DeleteKeyDeps {
  readonly keys: Pick<ApiKeysRepository, 'markDeleted'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock: () => Date;
}

/**
 * Deletes a key (soft: the document stays, marked, for the ledger's references) and frees its
 * place among the account's 25 active keys; it stops working on every replica at once.
 * 404 `key_not_found` when there is no such key or it is already deleted.
 */
export async function deleteKey(deps: DeleteKeyDeps, input: { keyId: string }): Promise<void> {
  const deleted = await deps.keys.markDeleted(input.keyId, deps.clock());
  if (deleted === null) throw accountErrors.keyNotFound(input.keyId);
  await deps.keyCache.invalidateKey(deleted.hash);
}
