import { expect, it } from 'vitest';
import type { OverrideWrite } from '../../../../shared/src/catalogue/live/catalogue-overrides.repository.ts';
import { describeEachStore } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:10.500Z');

function change(overrides: Partial<OverrideWrite>): OverrideWrite {
  return {
    subject: 'demo/chat',
    field: 'enabled',
    value: false,
    before: true,
    actor: 'admin-api',
    now,
    ...overrides,
  };
}

describeEachStore('catalogue overrides repository', (store) => {
  it('starts at version 0 with no overrides and no history', async () => {
    expect(await store().catalogueOverrides.version()).toBe(0);
    expect(await store().catalogueOverrides.load()).toEqual({ version: 0, entries: [] });
    expect(await store().catalogueOverrides.listChanges({ limit: 10 })).toEqual({
      changes: [],
      nextCursor: null,
    });
  });

  it('stores a value, records the change and bumps the version', async () => {
    const entry = await store().catalogueOverrides.write(change({}));
    expect(entry).toEqual({
      id: expect.stringMatching(/^chg_\d{12}$/),
      created: Math.floor(now.getTime() / 1000),
      actor: 'admin-api',
      subject: 'demo/chat',
      field: 'enabled',
      before: true,
      after: false,
    });
    expect(await store().catalogueOverrides.version()).toBe(1);
    expect(await store().catalogueOverrides.load()).toEqual({
      version: 1,
      entries: [{ subject: 'demo/chat', field: 'enabled', value: false, updatedAt: now }],
    });
  });

  it('replaces a value of the same field and keeps every kind of value as written', async () => {
    const price = { input: 12.5, output: 30, cached_input: null };
    await store().catalogueOverrides.write(change({ field: 'price_override', value: price, before: null }));
    await store().catalogueOverrides.write(change({ value: true, before: false, actor: 'operator' }));
    await store().catalogueOverrides.write(
      change({ subject: 'exchange_rate', field: 'irt_per_usd', value: 110000.5, before: 105000 }),
    );
    await store().catalogueOverrides.write(
      change({ subject: 'account:acct_1', field: 'price_multiplier', value: 0.9, before: 1 }),
    );
    await store().catalogueOverrides.write(change({ field: 'price_override', value: null, before: price }));
    const loaded = await store().catalogueOverrides.load();
    expect(loaded.version).toBe(6);
    const values = Object.fromEntries(loaded.entries.map((e) => [`${e.subject} ${e.field}`, e.value]));
    expect(values).toEqual({
      'demo/chat enabled': true,
      'demo/chat price_override': null,
      'exchange_rate irt_per_usd': 110000.5,
      'account:acct_1 price_multiplier': 0.9,
    });
  });

  it('pages the history newest first by its cursor', async () => {
    const all = await store().catalogueOverrides.listChanges({ limit: 100 });
    expect(all.changes.map((c) => c.id)).toEqual([...all.changes.map((c) => c.id)].sort().reverse());
    expect(all.changes[0]).toMatchObject({ field: 'price_override', before: { input: 12.5 }, after: null });
    expect(all.changes[3]).toMatchObject({ actor: 'operator', before: false, after: true });
    const first = await store().catalogueOverrides.listChanges({ limit: 4 });
    expect(first.changes).toEqual(all.changes.slice(0, 4));
    expect(first.nextCursor).toBe(all.changes[3]?.id);
    const rest = await store().catalogueOverrides.listChanges({ limit: 4, cursor: first.nextCursor ?? '' });
    expect(rest).toEqual({ changes: all.changes.slice(4), nextCursor: null });
  });

  it('is seen by another connection, and concurrent writes each bump the version once', async () => {
    const other = await store().connectAgain();
    const before = await other.catalogueOverrides.version();
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        (i % 2 === 0 ? store() : other).catalogueOverrides.write(
          change({ subject: `model/${i}`, value: false }),
        ),
      ),
    );
    expect(await other.catalogueOverrides.version()).toBe(before + 5);
    const loaded = await other.catalogueOverrides.load();
    expect(loaded.entries.filter((e) => e.subject.startsWith('model/'))).toHaveLength(5);
    const ids = (await other.catalogueOverrides.listChanges({ limit: 100 })).changes.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
