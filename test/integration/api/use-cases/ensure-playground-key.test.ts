/**
 * The lifetime of a session's playground key, on the real store, key cache and session store, with
 * a clock the test moves: made at first use for an hour, renewed only once less than half an hour
 * is left (an expired one included), replaced by the next generation when the holder deleted or
 * disabled it, deleted with its session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playgroundSecret } from '../../../../api/src/console/playground-secret.ts';
import { createSessionStore, type SessionStore } from '../../../../api/src/console/session-store.ts';
import { ensurePlaygroundKey, PLAYGROUND_KEY } from '../../../../api/src/use-cases/ensure-playground-key.ts';
import { revokePlaygroundKeys } from '../../../../api/src/use-cases/revoke-playground-keys.ts';
import { keyCacheChannel } from '../../../../shared/src/accounts/accounts.ts';
import { hashApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import { createKeyCache, type KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import { type AccountStores, openAccountStores } from '../../shared/accounts/account-stores.ts';

const MINUTE = 60_000;
let now = new Date('2030-03-10T21:10:00.000Z');
const clock = () => now;
const at = (minutes: number) => new Date(Date.parse('2030-03-10T21:10:00.000Z') + minutes * MINUTE);

let stores: AccountStores;
let keyCache: KeyCache;
let sessions: SessionStore;

beforeAll(async () => {
  stores = await openAccountStores();
  keyCache = createKeyCache({
    ...stores,
    subscriber: stores.newRedis(),
    ttlMs: 60_000,
    channel: keyCacheChannel(stores.config.queues.prefix),
  });
  await keyCache.start();
  sessions = createSessionStore({
    redis: stores.redis,
    keyPrefix: `${stores.config.queues.prefix}:console:`,
    idleMs: 12 * 60 * MINUTE,
    maxAgeMs: 30 * 24 * 60 * MINUTE,
    clock,
  });
});
afterAll(async () => {
  await keyCache?.close();
  await stores?.close();
});

async function holderSession() {
  const created = await stores.accounts.create(
    { email: `pg-${Date.now()}-${Math.random()}@example.test`, name: null },
    now,
  );
  if (created === 'email_taken') throw new Error('email taken');
  const account = created;
  const { token } = await sessions.create({
    role: 'holder',
    accountId: account.id,
    operatorTokenDigest: null,
  });
  const deps = { keys: stores.keys, keyCache, sessions, clock };
  const use = async () => {
    const session = await sessions.find(token);
    return ensurePlaygroundKey(deps, {
      accountId: account.id,
      sessionToken: token,
      current: session?.playground,
    });
  };
  const current = async () => {
    const ref = (await sessions.find(token))?.playground;
    return ref === undefined ? null : stores.keys.findById(ref.keyId);
  };
  return { account, token, use, current };
}

describe('ensurePlaygroundKey', () => {
  it('makes the key once, for an hour, and renews it only when less than half an hour is left', async () => {
    now = at(0);
    const holder = await holderSession();
    const secret = await holder.use();
    expect(secret).toBe(playgroundSecret(holder.token, 0).key);
    const made = await holder.current();
    expect(made).toMatchObject({
      accountId: holder.account.id,
      hash: hashApiKey(secret),
      name: PLAYGROUND_KEY.name,
      slot: null,
      active: true,
      expiresAt: at(60),
    });

    now = at(20);
    expect(await holder.use()).toBe(secret);
    expect(await holder.current()).toMatchObject({ revision: made?.revision, expiresAt: at(60) });

    now = at(40);
    await holder.use();
    expect((await holder.current())?.expiresAt).toEqual(at(100));

    // Unused for hours, the key expired; the next use brings the same key back for an hour.
    now = at(300);
    expect(await holder.use()).toBe(secret);
    expect(await holder.current()).toMatchObject({ id: made?.id, expiresAt: at(360) });
  });

  it('replaces a key the holder deleted or disabled with the next generation, deleting the disabled one', async () => {
    now = at(0);
    const holder = await holderSession();
    await holder.use();
    const first = await holder.current();
    await stores.keys.markDeleted(first?.id ?? '', now);
    expect(await holder.use()).toBe(playgroundSecret(holder.token, 1).key);
    const second = await holder.current();
    expect(second?.id).not.toBe(first?.id);

    await stores.keys.update(second?.id ?? '', second?.revision ?? 0, { active: false }, null, now);
    expect(await holder.use()).toBe(playgroundSecret(holder.token, 2).key);
    expect((await stores.keys.findById(second?.id ?? ''))?.deletedAt).not.toBeNull();
  });

  it('lets concurrent first uses of a session share one key', async () => {
    now = at(0);
    const holder = await holderSession();
    const secrets = await Promise.all(Array.from({ length: 6 }, () => holder.use()));
    expect(new Set(secrets).size).toBe(1);
    const keys = await stores.keys.listByAccount(holder.account.id);
    expect(keys).toHaveLength(1);
  });

  it('deletes the key of an ending session', async () => {
    now = at(0);
    const holder = await holderSession();
    await holder.use();
    const key = await holder.current();
    const session = await sessions.find(holder.token);
    await revokePlaygroundKeys({ keys: stores.keys, keyCache, clock }, session === null ? [] : [session]);
    expect((await stores.keys.findById(key?.id ?? ''))?.deletedAt).toEqual(now);
  });
});
