import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import { type NewApiKey, SLOT_TAKEN } from '../../../../shared/src/accounts/api-keys.repository.ts';
import { DEFAULT_KEY_SETTINGS } from '../../../../shared/src/accounts/key-settings.ts';
import {
  countsTowardLimit,
  LIMIT_REACHED,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  withFreeSlot,
} from '../../../../shared/src/accounts/key-slots.ts';
import { type AccountStores, openAccountStores } from './account-stores.ts';

let stores: AccountStores;
beforeAll(async () => {
  stores = await openAccountStores();
});
afterAll(() => stores.close());

const now = new Date('2030-01-01T00:00:00.000Z');

function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  const { hash, last4 } = generateApiKey();
  return { accountId, hash, last4, ...DEFAULT_KEY_SETTINGS, ...overrides };
}

/** Creates a counting key the way the create-key use case does. */
function createCounting(accountId: string, overrides: Partial<NewApiKey> = {}) {
  const key = newKey(accountId, overrides);
  return withFreeSlot(stores.keys, accountId, now, (slot) => stores.keys.insert(key, slot, now));
}

describe('the 25-active-keys limit', () => {
  it('lets exactly 25 of 40 concurrent creations through, each with its own slot', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => createCounting('acct_race')));
    const created = results.filter((result) => result !== LIMIT_REACHED);
    expect(created).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(results.filter((result) => result === LIMIT_REACHED)).toHaveLength(15);
    expect(new Set(created.map((key) => key.slot)).size).toBe(25);
    expect(await stores.keys.occupiedSlots('acct_race')).toHaveLength(25);
  });

  it('counts per account, and a deletion frees a place', async () => {
    for (let i = 0; i < 25; i++) await createCounting('acct_full');
    expect(await createCounting('acct_full')).toBe(LIMIT_REACHED);
    expect(await createCounting('acct_neighbour')).not.toBe(LIMIT_REACHED);
    const [first] = await stores.keys.listByAccount('acct_full');
    await stores.keys.markDeleted(first?.id ?? '', now);
    expect(await createCounting('acct_full')).not.toBe(LIMIT_REACHED);
    expect(await createCounting('acct_full')).toBe(LIMIT_REACHED);
  });

  it('does not count disabled keys (they hold no slot)', async () => {
    for (let i = 0; i < 30; i++)
      await stores.keys.insert(newKey('acct_disabled', { active: false }), null, now);
    for (let i = 0; i < 25; i++) expect(await createCounting('acct_disabled')).not.toBe(LIMIT_REACHED);
    expect(await createCounting('acct_disabled')).toBe(LIMIT_REACHED);
  });

  it('frees the places of expired keys when the account is full', async () => {
    const expiry = new Date(now.getTime() + 1000);
    for (let i = 0; i < 25; i++) await createCounting('acct_expiring', { expiresAt: i < 3 ? expiry : null });
    const afterExpiry = new Date(expiry.getTime() + 1);
    const key = newKey('acct_expiring');
    const create = () =>
      withFreeSlot(stores.keys, 'acct_expiring', afterExpiry, (slot) =>
        stores.keys.insert(key, slot, afterExpiry),
      );
    expect(await create()).not.toBe(LIMIT_REACHED);
    expect(await stores.keys.occupiedSlots('acct_expiring')).toHaveLength(23);
  });

  it('retries on a slot taken between reading and writing', async () => {
    let calls = 0;
    const result = await withFreeSlot(stores.keys, 'acct_retry', now, async (slot) => {
      calls += 1;
      return calls < 3 ? SLOT_TAKEN : slot;
    });
    expect(calls).toBe(3);
    expect(result).toMatch(/^acct_retry#\d+$/);
  });

  it('counts a key while active and not expired', () => {
    expect(countsTowardLimit({ active: true, expiresAt: null }, now)).toBe(true);
    expect(countsTowardLimit({ active: false, expiresAt: null }, now)).toBe(false);
    expect(countsTowardLimit({ active: true, expiresAt: now }, now)).toBe(false);
  });
});
