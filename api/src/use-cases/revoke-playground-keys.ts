import type { ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import type { ConsoleSession } from '../console/session-store.ts';

export interface RevokePlaygroundKeysDeps {
  readonly keys: Pick<ApiKeysRepository, 'markDeleted'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock: () => Date;
}

/**
 * Deletes the playground keys of sessions that are ending (sign-out and every other end of a
 * session), so they stop working on every replica at once. A key the holder deleted already is
 * skipped.
 */
export async function revokePlaygroundKeys(
  deps: RevokePlaygroundKeysDeps,
  sessions: readonly ConsoleSession[],
): Promise<void> {
  for (const session of sessions) {
    if (session.playground !== undefined) await revokeKey(deps, session.playground.keyId);
  }
}

/** Deletes one key (if not deleted yet) and drops it from every replica's key cache. */
export async function revokeKey(deps: RevokePlaygroundKeysDeps, keyId: string): Promise<void> {
  const deleted = await deps.keys.markDeleted(keyId, deps.clock());
  if (deleted !== null) await deps.keyCache.invalidateKey(deleted.hash);
}
