import { expect, it } from 'vitest';
import type { AccountRecord } from '../../../../shared/src/accounts/accounts.repository.ts';
import { describeEachStore } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:00.000Z');

describeEachStore('accounts repository', (store) => {
  async function created(email: string, name: string | null = null): Promise<AccountRecord> {
    const account = await store().accounts.create({ email, name }, now);
    if (account === 'email_taken') throw new Error(`${email} is taken`);
    return account;
  }

  it('creates an active account and finds it by id', async () => {
    const account = await store().accounts.create({ email: 'one@example.com', name: 'One' }, now);
    expect(account).toEqual({
      id: expect.stringMatching(/^acct_[0-9a-f]{24}$/),
      email: 'one@example.com',
      name: 'One',
      status: 'active',
      createdAt: now,
    });
    if (account === 'email_taken') throw new Error('unexpected');
    expect(await store().accounts.findById(account.id)).toEqual(account);
  });

  it('finds an account by email, and a missing name reads null', async () => {
    const account = await created('by-email@example.com');
    expect(account.name).toBeNull();
    expect(await store().accounts.findByEmail('by-email@example.com')).toEqual(account);
    expect(await store().accounts.findByEmail('nobody@example.com')).toBeNull();
  });

  it('refuses a second account with the same email', async () => {
    await store().accounts.create({ email: 'twice@example.com', name: null }, now);
    expect(await store().accounts.create({ email: 'twice@example.com', name: 'again' }, now)).toBe(
      'email_taken',
    );
  });

  it('answers exactly one of many concurrent creations with one email', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store().accounts.create({ email: 'race@example.com', name: null }, now),
      ),
    );
    expect(results.filter((result) => result !== 'email_taken')).toHaveLength(1);
  });

  it('answers exactly one creation with one email across two connections', async () => {
    const other = await store().connectAgain();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? store() : other).accounts.create({ email: 'race2@example.com', name: null }, now),
      ),
    );
    const winners = results.filter((result) => result !== 'email_taken');
    expect(winners).toHaveLength(1);
    expect(await other.accounts.findByEmail('race2@example.com')).toEqual(winners[0]);
  });

  it('sets the status, and answers null for an unknown account', async () => {
    const account = await created('status@example.com');
    const later = new Date(now.getTime() + 1000);
    expect(await store().accounts.setStatus(account.id, 'inactive', later)).toMatchObject({
      status: 'inactive',
    });
    expect(await store().accounts.findById(account.id)).toMatchObject({ status: 'inactive' });
    expect(await store().accounts.setStatus(account.id, 'active', later)).toEqual({
      ...account,
      status: 'active',
    });
    expect(await store().accounts.setStatus('acct_missing', 'inactive', later)).toBeNull();
    expect(await store().accounts.findById('acct_missing')).toBeNull();
  });

  it('keeps the creation time to the millisecond', async () => {
    const at = new Date('2031-06-15T12:34:56.789Z');
    const account = await store().accounts.create({ email: 'ms@example.com', name: 'Ms' }, at);
    if (account === 'email_taken') throw new Error('unexpected');
    expect((await store().accounts.findById(account.id))?.createdAt).toEqual(at);
  });
});

describeEachStore('accounts repository: search', (store) => {
  const people = [
    { email: 'alice.smith@example.com', name: 'Alice Smith' },
    { email: 'bob@smithy.io', name: null },
    { email: 'carol@example.org', name: 'Carol SMITHERS' },
    { email: 'dave@example.com', name: 'Dave' },
    { email: 'erin+a.b@example.com', name: 'Erin (ops)' },
    { email: 'frank@example.net', name: 'Élodie Frank' },
  ];

  async function seed(): Promise<void> {
    if ((await store().accounts.findByEmail(people[0]?.email ?? '')) !== null) return;
    for (const person of people) await store().accounts.create(person, now);
  }

  async function emails(query: string, limit = 50, cursor?: string) {
    const page = await store().accounts.search({ query, limit, cursor });
    return { emails: page.accounts.map((account) => account.email), next: page.nextCursor };
  }

  it('matches the email or the name as a substring, ignoring ASCII case, ordered by email', async () => {
    await seed();
    expect((await emails('smith')).emails).toEqual([
      'alice.smith@example.com',
      'bob@smithy.io',
      'carol@example.org',
    ]);
    expect((await emails('SMITH')).emails).toEqual((await emails('smith')).emails);
    expect((await emails('EXAMPLE.COM')).emails).toEqual([
      'alice.smith@example.com',
      'dave@example.com',
      'erin+a.b@example.com',
    ]);
    expect((await emails('nobody')).emails).toEqual([]);
  });

  it('takes the query literally, never as a pattern', async () => {
    await seed();
    expect((await emails('a.b')).emails).toEqual(['erin+a.b@example.com']);
    expect((await emails('(ops)')).emails).toEqual(['erin+a.b@example.com']);
    expect((await emails('i.e')).emails).toEqual([]);
    expect((await emails('%')).emails).toEqual([]);
    expect((await emails('Élodie')).emails).toEqual(['frank@example.net']);
  });

  it('lists every account for an empty query, a page at a time', async () => {
    await seed();
    const all = (await emails('')).emails;
    expect(all).toEqual([...all].sort());
    expect(all).toEqual(expect.arrayContaining(people.map((person) => person.email)));
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const found = await emails('', 2, cursor);
      expect(found.emails.length).toBeLessThanOrEqual(2);
      paged.push(...found.emails);
      if (found.next === null) break;
      cursor = found.next;
    }
    expect(paged).toEqual(all);
  });

  it('pages a filtered search, and answers no cursor on the last page', async () => {
    await seed();
    const first = await emails('example', 2);
    expect(first.emails).toEqual(['alice.smith@example.com', 'carol@example.org']);
    expect(first.next).not.toBeNull();
    const second = await emails('example', 2, first.next ?? undefined);
    expect(second.emails).toEqual(['dave@example.com', 'erin+a.b@example.com']);
    const third = await emails('example', 2, second.next ?? undefined);
    expect(third).toEqual({ emails: ['frank@example.net'], next: null });
    expect((await emails('example', 5)).next).toBeNull();
  });
});
