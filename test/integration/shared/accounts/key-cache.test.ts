import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../../shared/src/accounts/accounts.repository.ts';
import { keyCacheChannel } from '../../../../shared/src/accounts/accounts.ts';
import { generateApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import { type ApiKeyRecord, SLOT_TAKEN } from '../../../../shared/src/accounts/api-keys.repository.ts';
import {
  createKeyCache,
  type KeyCache,
  type KeyCacheOptions,
} from '../../../../shared/src/accounts/key-cache.ts';
import { DEFAULT_KEY_SETTINGS } from '../../../../shared/src/accounts/key-settings.ts';
import { type AccountStores, openAccountStores } from './account-stores.ts';

let stores: AccountStores;
let account: AccountRecord;
const caches: KeyCache[] = [];

beforeAll(async () => {
  stores = await openAccountStores();
  const created = await stores.accounts.create({ email: 'cache@example.com', name: null }, new Date());
  if (created === 'email_taken') throw new Error('unexpected');
  account = created;
});
afterAll(async () => {
  await Promise.all(caches.map((cache) => cache.close()));
  await stores.close();
});

async function storedKey(): Promise<ApiKeyRecord> {
  const { hash, last4 } = generateApiKey();
  const record = await stores.keys.insert(
    { accountId: account.id, hash, last4, ...DEFAULT_KEY_SETTINGS },
    null,
    new Date(),
  );
  if (record === SLOT_TAKEN) throw new Error('unexpected');
  return record;
}

/** A cache on the test stores whose MongoDB reads are counted; a fresh channel unless given. */
async function startCache(overrides: Partial<KeyCacheOptions> = {}) {
  let reads = 0;
  const cache = createKeyCache({
    keys: {
      findByHash: (hash) => {
        reads += 1;
        return stores.keys.findByHash(hash);
      },
    },
    accounts: stores.accounts,
    redis: stores.redis,
    subscriber: stores.newRedis(),
    ttlMs: 60_000,
    channel: keyCacheChannel(`${stores.config.queues.prefix}:${Math.random()}`),
    ...overrides,
  });
  await cache.start();
  caches.push(cache);
  return { cache, reads: () => reads };
}

async function disable(key: ApiKeyRecord): Promise<void> {
  const current = await stores.keys.findById(key.id);
  await stores.keys.update(key.id, current?.revision ?? 0, { active: false }, null, new Date());
}

/** Polls until `check` holds; returns the milliseconds it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe('key cache', () => {
  it('resolves a key with its account status, and null for an unknown hash', async () => {
    const key = await storedKey();
    const { cache } = await startCache();
    expect(await cache.lookup(key.hash)).toEqual({
      id: key.id,
      accountId: account.id,
      accountActive: true,
      name: '',
      last4: key.last4,
      rateLimit: 60,
      monthlyCapMicros: null,
      allowedIps: [],
      allowedModels: null,
      identityInjection: true,
      expiresAt: null,
      active: true,
      deleted: false,
    });
    expect(await cache.lookup(generateApiKey().hash)).toBeNull();
  });

  it('serves a record for ttlMs, then reads it again (injected clock)', async () => {
    const key = await storedKey();
    let now = 1_000_000;
    const { cache, reads } = await startCache({ ttlMs: 60_000, clock: () => now });
    expect((await cache.lookup(key.hash))?.active).toBe(true);
    await disable(key);
    now += 59_999;
    expect((await cache.lookup(key.hash))?.active).toBe(true);
    expect(reads()).toBe(1);
    now += 1;
    expect((await cache.lookup(key.hash))?.active).toBe(false);
    expect(reads()).toBe(2);
  });

  it('shares one MongoDB read among concurrent lookups of one hash (single flight)', async () => {
    const key = await storedKey();
    const unknown = generateApiKey().hash;
    const { cache, reads } = await startCache();
    const found = await Promise.all(Array.from({ length: 50 }, () => cache.lookup(key.hash)));
    expect(found.every((resolved) => resolved?.id === key.id)).toBe(true);
    expect(reads()).toBe(1);
    const missing = await Promise.all(Array.from({ length: 50 }, () => cache.lookup(unknown)));
    expect(missing.every((resolved) => resolved === null)).toBe(true);
    expect(reads()).toBe(2);
  });

  it('remembers unknown hashes as long as keys and boundedly, apart from known keys', async () => {
    const key = await storedKey();
    let now = 0;
    const { cache, reads } = await startCache({ clock: () => now, maxEntries: 5, maxNegativeEntries: 10 });
    await cache.lookup(key.hash);
    const unknown = Array.from({ length: 100 }, () => generateApiKey().hash);
    for (const hash of unknown) await cache.lookup(hash);
    expect(reads()).toBe(101);
    // The last ten are remembered, the flood evicted the older ones but not the known key.
    for (const hash of unknown.slice(-10)) await cache.lookup(hash);
    await cache.lookup(key.hash);
    expect(reads()).toBe(101);
    await cache.lookup(unknown[0] as string);
    expect(reads()).toBe(102);
    // Like a key, an unknown hash is read again only after ttlMs (creating a key invalidates its
    // hash, so a key created meanwhile is not hidden by this).
    now += 59_999;
    await cache.lookup(unknown[99] as string);
    expect(reads()).toBe(102);
    now += 1;
    await cache.lookup(unknown[99] as string);
    expect(reads()).toBe(103);
  });

  it('forgets an unknown hash when that key is created (its invalidation)', async () => {
    const { hash, last4 } = generateApiKey();
    const { cache, reads } = await startCache();
    expect(await cache.lookup(hash)).toBeNull();
    const record = await stores.keys.insert(
      { accountId: account.id, hash, last4, ...DEFAULT_KEY_SETTINGS },
      null,
      new Date(),
    );
    if (record === SLOT_TAKEN) throw new Error('unexpected');
    await cache.invalidateKey(hash);
    expect((await cache.lookup(hash))?.id).toBe(record.id);
    expect(reads()).toBe(2);
  });

  it('does not store a read that an invalidation overtook', async () => {
    const key = await storedKey();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const { cache } = await startCache({
      keys: {
        findByHash: async (hash) => {
          reads += 1;
          const record = await stores.keys.findByHash(hash);
          if (reads === 1) await gate;
          return record;
        },
      },
    });
    const slow = cache.lookup(key.hash);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await disable(key);
    await cache.invalidateKey(key.hash);
    release();
    expect((await slow)?.active).toBe(true);
    expect((await cache.lookup(key.hash))?.active).toBe(false);
    expect(reads).toBe(2);
  });

  it('invalidates a key on every replica, the publisher included, within a second', async () => {
    const key = await storedKey();
    const channel = keyCacheChannel(`${stores.config.queues.prefix}:replicas`);
    const a = await startCache({ channel });
    const b = await startCache({ channel });
    expect((await a.cache.lookup(key.hash))?.active).toBe(true);
    expect((await b.cache.lookup(key.hash))?.active).toBe(true);
    await disable(key);
    await a.cache.invalidateKey(key.hash);
    expect((await a.cache.lookup(key.hash))?.active).toBe(false);
    const took = await within(1_000, async () => (await b.cache.lookup(key.hash))?.active === false);
    expect(took).toBeLessThan(1_000);
  });

  it('invalidates every key of an account on every replica', async () => {
    const first = await storedKey();
    const second = await storedKey();
    const channel = keyCacheChannel(`${stores.config.queues.prefix}:accounts`);
    const a = await startCache({ channel });
    const b = await startCache({ channel });
    for (const key of [first, second]) expect((await b.cache.lookup(key.hash))?.accountActive).toBe(true);
    await stores.accounts.setStatus(account.id, 'inactive', new Date());
    try {
      await a.cache.invalidateAccount(account.id);
      await within(1_000, async () => {
        const resolved = await Promise.all([first, second].map((key) => b.cache.lookup(key.hash)));
        return resolved.every((key) => key?.accountActive === false);
      });
    } finally {
      await stores.accounts.setStatus(account.id, 'active', new Date());
    }
  });

  it('ignores malformed messages and other channels', async () => {
    const key = await storedKey();
    const { cache, reads } = await startCache({ channel: 'accounts-test:malformed' });
    await cache.lookup(key.hash);
    await stores.redis.publish('accounts-test:malformed', 'not json');
    await stores.redis.publish('accounts-test:malformed', JSON.stringify({ kind: 'key' }));
    await stores.redis.publish('accounts-test:other', JSON.stringify({ kind: 'key', hash: key.hash }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await cache.lookup(key.hash);
    expect(reads()).toBe(1);
  });

  it('forgets everything when its subscription reconnects (messages may have been lost)', async () => {
    const key = await storedKey();
    const subscriber = stores.newRedis();
    const { cache, reads } = await startCache({ subscriber });
    await cache.lookup(key.hash);
    const ready = new Promise((resolve) => subscriber.once('ready', resolve));
    subscriber.disconnect(true);
    await ready;
    await cache.lookup(key.hash);
    expect(reads()).toBe(2);
  });
});
