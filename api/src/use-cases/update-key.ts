import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import {
  type ApiKeyRecord,
  type ApiKeysRepository,
  SLOT_TAKEN,
  STALE_REVISION,
} from '../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import {
  type KeySettings,
  type KeySettingsInput,
  parseKeySettings,
} from '../../../shared/src/accounts/key-settings.ts';
import { countsTowardLimit, LIMIT_REACHED, withFreeSlot } from '../../../shared/src/accounts/key-slots.ts';

export interface UpdateKeyDeps {
  readonly keys: Pick<ApiKeysRepository, 'findById' | 'update' | 'occupiedSlots' | 'releaseExpiredSlots'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock: () => Date;
}

export interface UpdateKeyInput {
  readonly keyId: string;
  readonly settings: KeySettingsInput;
}

// Each retry means another write to this very key landed in between; a handful is plenty.
const MAX_ATTEMPTS = 10;

/**
 * Changes any settings of a key, effective on every replica at once. A key that comes to count
 * toward the 25-active-keys limit (enabled, or its expiry moved to the future) needs a free place:
 * 409 `key_limit_reached` otherwise. 400 on a bad setting; 404 `key_not_found` (deleted included).
 */
export async function updateKey(deps: UpdateKeyDeps, input: UpdateKeyInput): Promise<ApiKeyRecord> {
  const changes = parseKeySettings(input.settings);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await deps.keys.findById(input.keyId);
    if (current === null || current.deletedAt !== null) throw accountErrors.keyNotFound(input.keyId);
    const updated = await applyChanges(deps, current, changes);
    if (updated !== STALE_REVISION) {
      await deps.keyCache.invalidateKey(updated.hash);
      return updated;
    }
  }
  throw new Error(`key ${input.keyId} kept changing during ${MAX_ATTEMPTS} update attempts`);
}

/** One optimistic attempt, computed from `current`: STALE_REVISION when the key changed meanwhile. */
async function applyChanges(
  deps: UpdateKeyDeps,
  current: ApiKeyRecord,
  changes: Partial<KeySettings>,
): Promise<ApiKeyRecord | typeof STALE_REVISION> {
  const now = deps.clock();
  const write = (slot: string | null) => deps.keys.update(current.id, current.revision, changes, slot, now);
  if (!countsTowardLimit({ ...current, ...changes }, now)) return settle(await write(null));
  if (current.slot !== null) return settle(await write(current.slot));
  const result = await withFreeSlot(deps.keys, current.accountId, now, write);
  if (result === LIMIT_REACHED) throw accountErrors.keyLimitReached();
  return result;
}

/** A write that keeps or frees the key's own slot cannot collide with another key's slot. */
function settle<T>(result: T | typeof SLOT_TAKEN): T {
  if (result === SLOT_TAKEN) throw new Error('a key collided on a slot it already held');
  return result;
}
