import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountStores, openAccountStores } from './account-stores.ts';

let stores: AccountStores;
beforeAll(async () => {
  stores = await openAccountStores();
});
afterAll(() => stores.close());

const now = new Date('2030-01-01T00:00:00.000Z');

describe('accounts repository', () => {
  it('creates an active account and finds it by id', async () => {
    const created = await stores.accounts.create({ email: 'one@example.com', name: 'One' }, now);
    expect(created).toEqual({
      id: expect.stringMatching(/^acct_[0-9a-f]{24}$/),
      email: 'one@example.com',
      name: 'One',
      status: 'active',
      createdAt: now,
    });
    if (created === 'email_taken') throw new Error('unexpected');
    expect(await stores.accounts.findById(created.id)).toEqual(created);
  });

  it('refuses a second account with the same email', async () => {
    await stores.accounts.create({ email: 'twice@example.com', name: null }, now);
    expect(await stores.accounts.create({ email: 'twice@example.com', name: 'again' }, now)).toBe(
      'email_taken',
    );
  });

  it('answers exactly one of many concurrent creations with one email', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        stores.accounts.create({ email: 'race@example.com', name: null }, now),
      ),
    );
    expect(results.filter((result) => result !== 'email_taken')).toHaveLength(1);
  });

  it('sets the status, and answers null for an unknown account', async () => {
    const created = await stores.accounts.create({ email: 'status@example.com', name: null }, now);
    if (created === 'email_taken') throw new Error('unexpected');
    const later = new Date(now.getTime() + 1000);
    expect(await stores.accounts.setStatus(created.id, 'inactive', later)).toMatchObject({
      status: 'inactive',
    });
    expect(await stores.accounts.findById(created.id)).toMatchObject({ status: 'inactive' });
    expect(await stores.accounts.setStatus('acct_missing', 'inactive', later)).toBeNull();
    expect(await stores.accounts.findById('acct_missing')).toBeNull();
  });
});
