/**
 * The first use of an unknown key and of an existing but unusable one (disabled, deleted, account
 * inactive) must not be told apart by their cost: both take the same store reads, both are then
 * served from the cache alike, and both answer the same 401. Checked structurally (a counting fake
 * store), then, loosely, by time through the api.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../shared/src/accounts/accounts.repository.ts';
import { generateApiKey } from '../../../shared/src/accounts/api-key-format.ts';
import type { ApiKeyRecord } from '../../../shared/src/accounts/api-keys.repository.ts';
import { createKeyCache } from '../../../shared/src/accounts/key-cache.ts';
import { DEFAULT_KEY_SETTINGS } from '../../../shared/src/accounts/key-settings.ts';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

function record(hash: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    ...DEFAULT_KEY_SETTINGS,
    id: `key_${hash.slice(0, 24)}`,
    accountId: 'acct_111111111111111111111111',
    hash,
    last4: 'abcd',
    deletedAt: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    revision: 1,
    slot: null,
    ...overrides,
  };
}

/** A key cache over an in-memory store that counts every read, with a subscriber that does nothing. */
function countingCache(keys: ApiKeyRecord[]) {
  const reads: string[] = [];
  const account: AccountRecord = {
    id: 'acct_111111111111111111111111',
    email: 'a@example.test',
    name: null,
    status: 'active',
    createdAt: new Date(0),
    updatedAt: new Date(0),
  } as unknown as AccountRecord;
  const subscriber = {
    on: () => subscriber,
    off: () => subscriber,
    subscribe: async () => 1,
    unsubscribe: async () => 0,
  } as unknown as Redis;
  const cache = createKeyCache({
    keys: {
      findByHash: async (hash) => {
        reads.push('key');
        return keys.find((key) => key.hash === hash) ?? null;
      },
    },
    accounts: {
      findById: async (id) => {
        reads.push('account');
        return id === account.id ? account : null;
      },
    },
    redis: { publish: async () => 0 },
    subscriber,
    ttlMs: 60_000,
    channel: 'parity-test',
  });
  return { cache, reads };
}

describe('key lookups: the same path for known and unknown keys', () => {
  it('an unknown hash and a disabled key take the same store reads, then none', async () => {
    const disabled = record(generateApiKey().hash, { active: false });
    const deleted = record(generateApiKey().hash, { deletedAt: new Date(0) });
    const { cache, reads } = countingCache([disabled, deleted]);
    const readsOf = async (hash: string) => {
      const before = reads.length;
      await cache.lookup(hash);
      return reads.slice(before);
    };
    const unknown = generateApiKey().hash;
    const first = { unknown: await readsOf(unknown), disabled: await readsOf(disabled.hash) };
    expect(first.unknown).toEqual(['key', 'account']);
    expect(first.disabled).toEqual(first.unknown);
    expect(await readsOf(deleted.hash)).toEqual(first.unknown);
    // Afterwards each is one cache hit: no store read at all, for the whole TTL.
    for (let i = 0; i < 3; i++) {
      expect(await readsOf(unknown)).toEqual([]);
      expect(await readsOf(disabled.hash)).toEqual([]);
    }
    expect(await cache.lookup(unknown)).toBeNull();
    expect((await cache.lookup(disabled.hash))?.active).toBe(false);
  });

  it('invalidating a hash drops it whether it was known or not', async () => {
    const disabled = record(generateApiKey().hash, { active: false });
    const { cache, reads } = countingCache([disabled]);
    const unknown = generateApiKey().hash;
    await cache.lookup(unknown);
    await cache.lookup(disabled.hash);
    const before = reads.length;
    await cache.invalidateKey(unknown);
    await cache.invalidateKey(disabled.hash);
    await cache.lookup(unknown);
    await cache.lookup(disabled.hash);
    expect(reads.slice(before)).toEqual(['key', 'account', 'key', 'account']);
  });
});

describe('through the api', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  });
  afterAll(() => t.close());

  const balance = (key: string) =>
    t.app.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${key}` } });

  async function disabledKeys(count: number): Promise<string[]> {
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await createFundedKey(t.app);
      await admin(t.app, 'PATCH', `/keys/${created.keyId}`, { active: false });
      keys.push(created.key);
    }
    return keys;
  }

  it('answers an unknown and a disabled key with the same 401 and the same headers', async () => {
    const [disabled] = await disabledKeys(1);
    const unknown = await balance(generateApiKey().key);
    const known = await balance(String(disabled));
    expect(known.statusCode).toBe(401);
    expect(known.body).toBe(unknown.body);
    const names = (headers: Record<string, unknown>) =>
      Object.keys(headers)
        .filter((name) => name !== 'date')
        .sort();
    expect(names(known.headers)).toEqual(names(unknown.headers));
  });

  it('takes about as long for the first use of either (medians, loosely)', async () => {
    const rounds = 25;
    const disabled = await disabledKeys(rounds);
    const timesOf = { unknown: [] as number[], disabled: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      // Interleaved, so a slow moment of this shared machine hits both alike.
      let started = performance.now();
      await balance(generateApiKey().key);
      timesOf.unknown.push(performance.now() - started);
      started = performance.now();
      await balance(String(disabled[i]));
      timesOf.disabled.push(performance.now() - started);
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const difference = Math.abs(median(timesOf.unknown) - median(timesOf.disabled));
    // Timing on a shared machine is noisy: this only catches a gross difference (the structural
    // test above is the real check).
    expect(difference).toBeLessThan(5);
  });
});
