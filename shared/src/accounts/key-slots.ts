import { type ApiKeysRepository, SLOT_TAKEN } from './api-keys.repository.ts';
import { isExpired } from './key-state.ts';

/**
 * The 25-active-keys limit (spec, Authentication 6), race-free without transactions: an account has
 * 25 slots (`<account_id>#0` … `#24`); every key that counts toward the limit holds one in its own
 * document under a unique sparse index, and takes it in the same single-document write that makes
 * it count (insert, or an update guarded by the key's revision). Two writers can never hold one slot,
 * so at most 25 keys count, however many replicas create or enable keys at once, and a crash cannot
 * leave a counter out of step with the keys because there is no separate counter.
 *
 * A key counts while it is not deleted, active, and not expired. Expiry happens by the clock without
 * a write, so an expired key keeps its slot until an account that is full needs one: then every
 * expired key's slot is freed (`releaseExpiredSlots`) before the limit is declared reached.
 */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 25;

/** Every slot of the account is held by a key that counts. */
export const LIMIT_REACHED = 'limit_reached';

// Each lost race means another writer took a slot, so the losses are bounded by the number of
// slots (plus any freed meanwhile); this bound only guards against a bug looping forever.
const MAX_ATTEMPTS = 4 * MAX_ACTIVE_KEYS_PER_ACCOUNT;

/** Whether a key with these settings must hold a slot at `now`. */
export function countsTowardLimit(key: { active: boolean; expiresAt: Date | null }, now: Date): boolean {
  return key.active && !isExpired(key.expiresAt, now);
}

/**
 * Runs `write` with a free slot of the account until it does not answer SLOT_TAKEN (another writer
 * took that slot first). Answers LIMIT_REACHED when no slot is free even after freeing the slots
 * of expired keys.
 */
export async function withFreeSlot<T>(
  keys: Pick<ApiKeysRepository, 'occupiedSlots' | 'releaseExpiredSlots'>,
  accountId: string,
  now: Date,
  write: (slot: string) => Promise<T | typeof SLOT_TAKEN>,
): Promise<Exclude<T, typeof SLOT_TAKEN> | typeof LIMIT_REACHED> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const free = freeSlots(accountId, new Set(await keys.occupiedSlots(accountId)));
    if (free.length === 0) {
      if ((await keys.releaseExpiredSlots(accountId, now)) > 0) continue;
      return LIMIT_REACHED;
    }
    // A random free slot rather than the first: concurrent writers then rarely pick the same one.
    const slot = free[Math.floor(Math.random() * free.length)] as string;
    const result = await write(slot);
    if (result !== SLOT_TAKEN) return result as Exclude<T, typeof SLOT_TAKEN>;
  }
  throw new Error(`no free key slot for account ${accountId} after ${MAX_ATTEMPTS} attempts`);
}

function freeSlots(accountId: string, occupied: ReadonlySet<string>): string[] {
  const free: string[] = [];
  for (let index = 0; index < MAX_ACTIVE_KEYS_PER_ACCOUNT; index++) {
    const slot = `${accountId}#${index}`;
    if (!occupied.has(slot)) free.push(slot);
  }
  return free;
}
