import type { ApiKeyRecord, ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import { DEFAULT_KEY_SETTINGS } from '../../../shared/src/accounts/key-settings.ts';
import { playgroundSecret } from '../console/playground-secret.ts';
import type { PlaygroundKeyRef, SessionStore } from '../console/session-store.ts';
import { revokeKey } from './revoke-playground-keys.ts';

/**
 * docs/console.md, "Playground": the key of a session's playground is an ordinary key of the
 * account (hash stored, default rate limit, every charge in the ledger and usage under its name)
 * that holds no place among the account's 25 active keys, lives at most an hour past its last use
 * and is deleted when the session ends.
 */
export const PLAYGROUND_KEY = {
  name: 'Console playground',
  lifetimeMs: 60 * 60 * 1000,
  /** A use renews the key's expiry once less than this is left (a write at most every half hour). */
  renewWithinMs: 30 * 60 * 1000,
} as const;

// Each round means the holder deleted or disabled the key just made: a bound against a bug only.
const MAX_GENERATIONS_PER_CALL = 8;

export interface EnsurePlaygroundKeyDeps {
  readonly keys: Pick<ApiKeysRepository, 'findById' | 'findByHash' | 'insert' | 'update' | 'markDeleted'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly sessions: Pick<SessionStore, 'setPlaygroundKey'>;
  readonly clock: () => Date;
}

export interface EnsurePlaygroundKeyInput {
  readonly accountId: string;
  /** The session's own token (from its cookie): the key's secret derives from it. */
  readonly sessionToken: string;
  readonly current: PlaygroundKeyRef | undefined;
}

/**
 * The secret of the session's playground key, made on first use. The key found is renewed when
 * close to its expiry; one the holder deleted or disabled is replaced by a key of the next
 * generation. Concurrent first uses of one session derive the same secret, so they share one key.
 */
export async function ensurePlaygroundKey(
  deps: EnsurePlaygroundKeyDeps,
  input: EnsurePlaygroundKeyInput,
): Promise<string> {
  const now = deps.clock();
  const existing = input.current === undefined ? null : await deps.keys.findById(input.current.keyId);
  if (input.current !== undefined && existing !== null && usable(existing, input.accountId)) {
    await renew(deps, existing, now);
    return playgroundSecret(input.sessionToken, input.current.generation).key;
  }
  // The holder disabled it: it goes, so that no key of the session outlives the session.
  if (existing !== null && existing.deletedAt === null) await revokeKey(deps, existing.id);
  const first = input.current === undefined ? 0 : input.current.generation + 1;
  for (let generation = first; generation < first + MAX_GENERATIONS_PER_CALL; generation++) {
    const secret = playgroundSecret(input.sessionToken, generation);
    const key = await findOrInsert(deps, input.accountId, secret, now);
    if (usable(key, input.accountId)) {
      await renew(deps, key, now);
      await deps.sessions.setPlaygroundKey(input.sessionToken, { keyId: key.id, generation });
      return secret.key;
    }
    // This generation's key was deleted or disabled meanwhile: the next one.
    if (key.deletedAt === null) await revokeKey(deps, key.id);
  }
  throw new Error(`no usable playground key after ${MAX_GENERATIONS_PER_CALL} generations`);
}

function usable(key: ApiKeyRecord, accountId: string): boolean {
  return key.accountId === accountId && key.deletedAt === null && key.active;
}

/** Inserts the key of this secret, or reads the one a concurrent first use inserted. */
async function findOrInsert(
  deps: EnsurePlaygroundKeyDeps,
  accountId: string,
  secret: { hash: string; last4: string },
  now: Date,
): Promise<ApiKeyRecord> {
  const found = await deps.keys.findByHash(secret.hash);
  if (found !== null) return found;
  const settings = {
    ...DEFAULT_KEY_SETTINGS,
    name: PLAYGROUND_KEY.name,
    expiresAt: new Date(now.getTime() + PLAYGROUND_KEY.lifetimeMs),
  };
  try {
    // No slot: the key does not count toward the 25 active keys (docs/console.md).
    const inserted = await deps.keys.insert({ accountId, ...secret, ...settings }, null, now);
    if (typeof inserted === 'string')
      throw new Error(`unexpected ${inserted} inserting a key without a slot`);
    // A replica may have remembered this hash as unknown.
    await deps.keyCache.invalidateKey(inserted.hash);
    return inserted;
  } catch (err) {
    // The hash is unique: a concurrent first use of this session inserted it first.
    const raced = await deps.keys.findByHash(secret.hash);
    if (raced === null) throw err;
    return raced;
  }
}

/** Moves the expiry an hour ahead once less than half an hour is left (an expired key included). */
async function renew(deps: EnsurePlaygroundKeyDeps, key: ApiKeyRecord, now: Date): Promise<void> {
  const left = (key.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY) - now.getTime();
  if (left >= PLAYGROUND_KEY.renewWithinMs) return;
  const expiresAt = new Date(now.getTime() + PLAYGROUND_KEY.lifetimeMs);
  const updated = await deps.keys.update(key.id, key.revision, { expiresAt }, key.slot, now);
  // A concurrent use renewed it first (or the holder changed it): that renewal stands.
  if (typeof updated === 'string') return;
  await deps.keyCache.invalidateKey(updated.hash);
}
