import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import {
  type ApiKeyRecord,
  type NewApiKey,
  SLOT_TAKEN,
  STALE_REVISION,
} from '../../../../shared/src/accounts/api-keys.repository.ts';
import { DEFAULT_KEY_SETTINGS } from '../../../../shared/src/accounts/key-settings.ts';
import { type AccountStores, openAccountStores } from './account-stores.ts';

let stores: AccountStores;
beforeAll(async () => {
  stores = await openAccountStores();
});
afterAll(() => stores.close());

const now = new Date('2030-01-01T00:00:00.000Z');
const later = new Date('2030-01-02T00:00:00.000Z');

function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  const { hash, last4 } = generateApiKey();
  return { accountId, hash, last4, ...DEFAULT_KEY_SETTINGS, ...overrides };
}

async function inserted(key: NewApiKey, slot: string | null, at = now): Promise<ApiKeyRecord> {
  const record = await stores.keys.insert(key, slot, at);
  if (record === SLOT_TAKEN) throw new Error('slot taken');
  return record;
}

describe('api keys repository', () => {
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
    expect(record).toMatchObject({
      id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
      accountId: 'acct_a',
      hash: key.hash,
      last4: key.last4,
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
      revision: 0,
      slot: 'acct_a#0',
    });
    const byHash = await stores.keys.findByHash(key.hash);
    expect(byHash).toEqual(record);
    expect(byHash?.monthlyCapMicros).toBe(9_007_199_254_740_993n);
    expect(await stores.keys.findById(record.id)).toEqual(record);
    expect(await stores.keys.findByHash('0'.repeat(64))).toBeNull();
  });

  it('refuses a second key with the same hash (not as a slot collision)', async () => {
    const key = newKey('acct_b');
    await inserted(key, null);
    await expect(stores.keys.insert({ ...key, accountId: 'acct_other' }, null, now)).rejects.toThrow(
      /duplicate key/,
    );
  });

  it('lets one key only hold a slot; keys without slots never collide', async () => {
    await inserted(newKey('acct_c'), 'acct_c#3');
    expect(await stores.keys.insert(newKey('acct_c'), 'acct_c#3', now)).toBe(SLOT_TAKEN);
    await inserted(newKey('acct_c'), null);
    await inserted(newKey('acct_c'), null);
    expect((await stores.keys.occupiedSlots('acct_c')).sort()).toEqual(['acct_c#3']);
  });

  it('lists the account keys that are not deleted, oldest first', async () => {
    const first = await inserted(newKey('acct_d', { name: 'first' }), null, now);
    const gone = await inserted(newKey('acct_d', { name: 'gone' }), null, later);
    const second = await inserted(newKey('acct_d', { name: 'second' }), null, later);
    await stores.keys.markDeleted(gone.id, later);
    const names = (await stores.keys.listByAccount('acct_d')).map((key) => key.name);
    expect(names[0]).toBe(first.name);
    expect(names).toHaveLength(2);
    expect(names).toContain(second.name);
    expect(await stores.keys.listByAccount('acct_nobody')).toEqual([]);
  });

  it('updates only at the revision read, moving or freeing the slot', async () => {
    const key = await inserted(newKey('acct_e'), 'acct_e#0');
    const updated = await stores.keys.update(key.id, 0, { name: 'renamed', rateLimit: 5 }, 'acct_e#0', later);
    expect(updated).toMatchObject({
      name: 'renamed',
      rateLimit: 5,
      revision: 1,
      slot: 'acct_e#0',
      updatedAt: later,
    });
    expect(await stores.keys.update(key.id, 0, { name: 'stale' }, 'acct_e#0', later)).toBe(STALE_REVISION);
    const disabled = await stores.keys.update(key.id, 1, { active: false }, null, later);
    expect(disabled).toMatchObject({ active: false, slot: null, revision: 2 });
    expect(await stores.keys.occupiedSlots('acct_e')).toEqual([]);
  });

  it('answers SLOT_TAKEN when an update would take a held slot', async () => {
    await inserted(newKey('acct_f'), 'acct_f#1');
    const other = await inserted(newKey('acct_f', { active: false }), null);
    expect(await stores.keys.update(other.id, 0, { active: true }, 'acct_f#1', later)).toBe(SLOT_TAKEN);
    expect(await stores.keys.findById(other.id)).toMatchObject({ active: false, revision: 0 });
  });

  it('soft-deletes once, freeing the slot; a deleted key cannot be updated', async () => {
    const key = await inserted(newKey('acct_g'), 'acct_g#0');
    const deleted = await stores.keys.markDeleted(key.id, later);
    expect(deleted).toMatchObject({ deletedAt: later, slot: null });
    expect(await stores.keys.markDeleted(key.id, later)).toBeNull();
    expect(await stores.keys.markDeleted('key_missing', later)).toBeNull();
    expect(await stores.keys.update(key.id, deleted?.revision ?? 0, { active: true }, null, later)).toBe(
      STALE_REVISION,
    );
    expect(await stores.keys.findByHash(key.hash)).toMatchObject({ deletedAt: later });
  });

  it('frees the slots of expired keys only', async () => {
    const expired = await inserted(newKey('acct_h', { expiresAt: now }), 'acct_h#0');
    await inserted(newKey('acct_h', { expiresAt: later }), 'acct_h#1');
    await inserted(newKey('acct_h'), 'acct_h#2');
    expect(await stores.keys.releaseExpiredSlots('acct_h', now)).toBe(1);
    expect((await stores.keys.occupiedSlots('acct_h')).sort()).toEqual(['acct_h#1', 'acct_h#2']);
    expect(await stores.keys.findById(expired.id)).toMatchObject({ slot: null, revision: 1 });
    expect(await stores.keys.releaseExpiredSlots('acct_h', now)).toBe(0);
  });
});
