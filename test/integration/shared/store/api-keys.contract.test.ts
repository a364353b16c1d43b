import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { generateApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import {
  type ApiKeyRecord,
  type NewApiKey,
  SLOT_TAKEN,
  STALE_REVISION,
} from '../../../../shared/src/accounts/api-keys.repository.ts';
import { DEFAULT_KEY_SETTINGS, KEY_SETTING_LIMITS } from '../../../../shared/src/accounts/key-settings.ts';
import { describeEachStore, JONGODB_RACES } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const later = new Date('2030-01-02T00:00:00.000Z');

function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  const { hash, last4 } = generateApiKey();
  return { accountId, hash, last4, ...DEFAULT_KEY_SETTINGS, ...overrides };
}

describeEachStore('api keys repository', (store, kind) => {
  async function inserted(key: NewApiKey, slot: string | null, at = now): Promise<ApiKeyRecord> {
    const record = await store().keys.insert(key, slot, at);
    if (record === SLOT_TAKEN) throw new Error('slot taken');
    return record;
  }

  it('stores every setting and finds the key by hash and by id', async () => {
    const key = newKey('acct_a', {
      name: 'ci',
      rateLimit: 300,
      monthlyCapMicros: 9_007_199_254_740_993n,
      allowedIps: ['1.2.3.4', '2001:db8::1'],
      allowedModels: ['openai/gpt-5'],
      identityInjection: false,
      expiresAt: later,
      active: true,
    });
    const record = await inserted(key, 'acct_a#0');
    expect(record).toEqual({
      ...key,
      id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
      revision: 0,
      slot: 'acct_a#0',
    });
    const byHash = await store().keys.findByHash(key.hash);
    expect(byHash).toEqual(record);
    expect(byHash?.monthlyCapMicros).toBe(9_007_199_254_740_993n);
    expect(await store().keys.findById(record.id)).toEqual(record);
    expect(await store().keys.findByHash('0'.repeat(64))).toBeNull();
    expect(await store().keys.findById('key_missing')).toBeNull();
  });

  it('stores the default settings as given', async () => {
    const key = newKey('acct_defaults');
    const record = await inserted(key, null);
    expect(await store().keys.findById(record.id)).toEqual({
      ...record,
      ...DEFAULT_KEY_SETTINGS,
      slot: null,
    });
  });

  it('refuses a second key with the same hash (not as a slot collision)', async () => {
    const key = newKey('acct_b');
    await inserted(key, null);
    await expect(store().keys.insert({ ...key, accountId: 'acct_other' }, null, now)).rejects.toThrow(
      /duplicate key|UNIQUE constraint failed: api_keys\.hash/,
    );
    await expect(
      store().keys.insert({ ...key, accountId: 'acct_other' }, 'acct_other#0', now),
    ).rejects.toThrow();
    expect(await store().keys.findByHash(key.hash)).toMatchObject({ accountId: 'acct_b' });
    expect(await store().keys.occupiedSlots('acct_other')).toEqual([]);
  });

  it('lets one key only hold a slot; keys without slots never collide', async () => {
    await inserted(newKey('acct_c'), 'acct_c#3');
    expect(await store().keys.insert(newKey('acct_c'), 'acct_c#3', now)).toBe(SLOT_TAKEN);
    await inserted(newKey('acct_c'), null);
    await inserted(newKey('acct_c'), null);
    expect((await store().keys.occupiedSlots('acct_c')).sort()).toEqual(['acct_c#3']);
  });

  it('gives one slot to exactly one of many concurrent inserts, across connections', async () => {
    const other = await store().connectAgain();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        (index % 2 === 0 ? store() : other).keys.insert(newKey('acct_race'), 'acct_race#0', now),
      ),
    );
    expect(results.filter((result) => result !== SLOT_TAKEN)).toHaveLength(1);
    expect(await other.keys.occupiedSlots('acct_race')).toEqual(['acct_race#0']);
    expect(await store().keys.listByAccount('acct_race')).toHaveLength(1);
  });

  it.runIf(kind === 'sqlite')(
    'gives each slot to exactly one key when threads with their own connections insert at once',
    async () => {
      const threads = 4;
      const slots = Array.from({ length: 25 }, (_, index) => `acct_threads#${index}`);
      const outcomes = (
        await Promise.all(Array.from({ length: threads }, () => insertFromThread(store().location, slots)))
      ).flat();
      expect(outcomes).toHaveLength(threads * slots.length);
      expect(outcomes.filter((outcome) => outcome === 'inserted')).toHaveLength(slots.length);
      expect(outcomes.filter((outcome) => outcome !== 'inserted' && outcome !== SLOT_TAKEN)).toEqual([]);
      expect((await store().keys.occupiedSlots('acct_threads')).sort()).toEqual([...slots].sort());
    },
  );

  it('lists the account keys that are not deleted, oldest first', async () => {
    const first = await inserted(newKey('acct_d', { name: 'first' }), null, now);
    const gone = await inserted(newKey('acct_d', { name: 'gone' }), null, later);
    const second = await inserted(newKey('acct_d', { name: 'second' }), null, later);
    await store().keys.markDeleted(gone.id, later);
    const names = (await store().keys.listByAccount('acct_d')).map((key) => key.name);
    expect(names[0]).toBe(first.name);
    expect(names).toHaveLength(2);
    expect(names).toContain(second.name);
    expect(await store().keys.listByAccount('acct_nobody')).toEqual([]);
  });

  it('updates only at the revision read, moving or freeing the slot', async () => {
    const key = await inserted(newKey('acct_e'), 'acct_e#0');
    const updated = await store().keys.update(
      key.id,
      0,
      { name: 'renamed', rateLimit: 5 },
      'acct_e#0',
      later,
    );
    expect(updated).toMatchObject({
      name: 'renamed',
      rateLimit: 5,
      revision: 1,
      slot: 'acct_e#0',
      updatedAt: later,
    });
    expect(await store().keys.update(key.id, 0, { name: 'stale' }, 'acct_e#0', later)).toBe(STALE_REVISION);
    const disabled = await store().keys.update(key.id, 1, { active: false }, null, later);
    expect(disabled).toMatchObject({ active: false, slot: null, revision: 2 });
    expect(await store().keys.occupiedSlots('acct_e')).toEqual([]);
    expect(await store().keys.update('key_missing', 0, { name: 'x' }, null, later)).toBe(STALE_REVISION);
  });

  it('changes only the settings given, each of them', async () => {
    const key = await inserted(newKey('acct_all', { allowedModels: ['openai/gpt-5'] }), null);
    const changes = {
      name: 'all',
      rateLimit: 3000,
      monthlyCapMicros: 5_000_000n,
      allowedIps: ['10.0.0.1'],
      allowedModels: null,
      identityInjection: false,
      expiresAt: later,
      active: false,
    };
    const updated = await store().keys.update(key.id, 0, changes, null, later);
    expect(updated).toEqual({ ...key, ...changes, updatedAt: later, revision: 1 });
    const untouched = await store().keys.update(key.id, 1, {}, null, later);
    expect(untouched).toEqual({ ...key, ...changes, updatedAt: later, revision: 2 });
    const cleared = await store().keys.update(
      key.id,
      2,
      { monthlyCapMicros: null, expiresAt: null },
      null,
      later,
    );
    expect(cleared).toMatchObject({
      monthlyCapMicros: null,
      expiresAt: null,
      name: 'all',
      allowedIps: ['10.0.0.1'],
    });
  });

  it('lets one of many concurrent updates at one revision win', async ({ skip }) => {
    skip(store().server === 'jongodb', JONGODB_RACES);
    const key = await inserted(newKey('acct_stale'), null);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        store().keys.update(key.id, 0, { name: `n${index}` }, null, later),
      ),
    );
    const winners = results.filter((result) => result !== STALE_REVISION);
    expect(winners).toHaveLength(1);
    expect(await store().keys.findById(key.id)).toEqual(winners[0]);
  });

  it('keeps a monthly cap above 2^53 µIRT exactly, through insert and update', async () => {
    const max = BigInt(KEY_SETTING_LIMITS.monthlyCapMax) * 1_000_000n;
    const key = await inserted(newKey('acct_cap', { monthlyCapMicros: max }), null);
    expect((await store().keys.findById(key.id))?.monthlyCapMicros).toBe(max);
    const odd = 2n ** 53n + 1n;
    const updated = await store().keys.update(key.id, 0, { monthlyCapMicros: odd }, null, later);
    expect(updated).toMatchObject({ monthlyCapMicros: odd });
    expect((await store().keys.findByHash(key.hash))?.monthlyCapMicros).toBe(odd);
    expect((await store().keys.listByAccount('acct_cap'))[0]?.monthlyCapMicros).toBe(odd);
  });

  it('keeps the lists as given: order, IPv6, empty, and null models', async () => {
    const ips = ['2001:db8::1', '1.2.3.4', '::ffff:10.0.0.1'];
    const models = ['openai/gpt-5', 'anthropic/claude-x', 'google/gemini-2.5-pro'];
    const key = await inserted(newKey('acct_lists', { allowedIps: ips, allowedModels: models }), null);
    expect(await store().keys.findById(key.id)).toMatchObject({ allowedIps: ips, allowedModels: models });
    const emptied = await store().keys.update(
      key.id,
      0,
      { allowedIps: [], allowedModels: null },
      null,
      later,
    );
    expect(emptied).toMatchObject({ allowedIps: [], allowedModels: null });
    expect(await store().keys.findById(key.id)).toMatchObject({ allowedIps: [], allowedModels: null });
    const one = await store().keys.update(key.id, 1, { allowedModels: ['openai/gpt-5'] }, null, later);
    expect(one).toMatchObject({ allowedModels: ['openai/gpt-5'] });
  });

  it('answers SLOT_TAKEN when an update would take a held slot', async () => {
    await inserted(newKey('acct_f'), 'acct_f#1');
    const other = await inserted(newKey('acct_f', { active: false }), null);
    expect(await store().keys.update(other.id, 0, { active: true }, 'acct_f#1', later)).toBe(SLOT_TAKEN);
    expect(await store().keys.findById(other.id)).toMatchObject({ active: false, revision: 0 });
  });

  it('soft-deletes once, freeing the slot; a deleted key cannot be updated', async () => {
    const key = await inserted(newKey('acct_g'), 'acct_g#0');
    const deleted = await store().keys.markDeleted(key.id, later);
    expect(deleted).toMatchObject({ deletedAt: later, slot: null });
    expect(await store().keys.markDeleted(key.id, later)).toBeNull();
    expect(await store().keys.markDeleted('key_missing', later)).toBeNull();
    expect(await store().keys.update(key.id, deleted?.revision ?? 0, { active: true }, null, later)).toBe(
      STALE_REVISION,
    );
    expect(await store().keys.findByHash(key.hash)).toMatchObject({ deletedAt: later });
  });

  it('keeps finding a deleted key by hash and id, and gives its slot to another key', async () => {
    const key = await inserted(newKey('acct_gone', { name: 'gone' }), 'acct_gone#0');
    const deleted = await store().keys.markDeleted(key.id, later);
    expect(deleted).toEqual({ ...key, deletedAt: later, updatedAt: later, slot: null, revision: 1 });
    expect(await store().keys.findByHash(key.hash)).toEqual(deleted);
    expect(await store().keys.findById(key.id)).toEqual(deleted);
    expect(await store().keys.listByAccount('acct_gone')).toEqual([]);
    expect(await store().keys.occupiedSlots('acct_gone')).toEqual([]);
    await inserted(newKey('acct_gone'), 'acct_gone#0');
    expect(await store().keys.findByHash(key.hash)).toEqual(deleted);
  });

  it('frees the slots of expired keys only', async () => {
    const expired = await inserted(newKey('acct_h', { expiresAt: now }), 'acct_h#0');
    await inserted(newKey('acct_h', { expiresAt: later }), 'acct_h#1');
    await inserted(newKey('acct_h'), 'acct_h#2');
    await inserted(newKey('acct_h_other', { expiresAt: now }), 'acct_h_other#0');
    expect(await store().keys.releaseExpiredSlots('acct_h', now)).toBe(1);
    expect((await store().keys.occupiedSlots('acct_h')).sort()).toEqual(['acct_h#1', 'acct_h#2']);
    expect(await store().keys.findById(expired.id)).toMatchObject({ slot: null, revision: 1 });
    expect(await store().keys.releaseExpiredSlots('acct_h', now)).toBe(0);
    expect(await store().keys.occupiedSlots('acct_h_other')).toEqual(['acct_h_other#0']);
  });
});

type ThreadOutcome = 'inserted' | typeof SLOT_TAKEN | `error: ${string}`;

// A thread of its own opens its own connection, as the api and the workers of one host do: their
// writes really overlap, so the slot constraint and the busy timeout are exercised, not just the
// order of one connection's statements.
const THREAD_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { openSqlite } = await import(workerData.databaseModule);
  const { createSqliteApiKeysRepository } = await import(workerData.keysModule);
  const db = openSqlite({ path: workerData.path, busyTimeoutMs: 5000 });
  const keys = createSqliteApiKeysRepository(db);
  const outcomes = [];
  for (const { key, slot } of workerData.attempts) {
    try {
      const result = await keys.insert(key, slot, new Date());
      outcomes.push(typeof result === 'string' ? result : 'inserted');
    } catch (error) {
      outcomes.push('error: ' + error.message);
    }
  }
  db.close();
  parentPort.postMessage(outcomes);
})().catch((error) => parentPort.postMessage(['error: ' + error.message]));
`;

function insertFromThread(path: string, slots: readonly string[]): Promise<ThreadOutcome[]> {
  const shuffled = [...slots].sort(() => Math.random() - 0.5);
  const attempts = shuffled.map((slot) => ({ key: newKey('acct_threads'), slot }));
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: {
      path,
      attempts,
      databaseModule: new URL('../../../../shared/src/store/sqlite/database.ts', import.meta.url).href,
      keysModule: new URL('../../../../shared/src/store/sqlite/api-keys.sqlite.ts', import.meta.url).href,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (outcomes: ThreadOutcome[]) => {
      resolve(outcomes);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
