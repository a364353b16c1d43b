import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  ChargeRecord,
  LedgerEntry,
  LedgerKind,
  MoneyStore,
  TopUpRecord,
} from '../../../../shared/src/billing/money-store.ts';

/** A fresh, empty money store of one kind, and how to release it. */
export interface OpenedMoneyStore {
  readonly money: MoneyStore;
  close(): Promise<void>;
}

export interface MoneyContractOptions<T extends OpenedMoneyStore> {
  /**
   * Changes the account's wallet balance behind the store's back (a raw write), so that its ledger
   * check must report it. The case that needs it is skipped when absent.
   */
  readonly tamper?: (store: T, accountId: string) => Promise<void>;
}

const BASE = Date.parse('2025-03-01T10:00:00.000Z');
const TWO_POW_53 = 2n ** 53n;

/** A charge with defaults; `at` is milliseconds after a fixed base time. */
export function charge(id: string, fields: Partial<ChargeRecord> & { at?: number } = {}): ChargeRecord {
  const { at = 0, ...rest } = fields;
  return {
    id,
    accountId: 'acc-1',
    keyId: 'key-1',
    model: 'gpt-test',
    costMicros: 1_000n,
    usage: { requests: 1, inputTokens: 10, outputTokens: 20 },
    day: '2025-03-01',
    month: '2025-03',
    createdAt: new Date(BASE + at),
    ...rest,
  };
}

function topUp(id: string, fields: Partial<TopUpRecord> & { at?: number } = {}): TopUpRecord {
  const { at = 0, ...rest } = fields;
  return {
    id,
    accountId: 'acc-1',
    amountMicros: 50_000_000n,
    reference: `ref-${id}`,
    day: '2025-03-01',
    month: '2025-03',
    createdAt: new Date(BASE + at),
    ...rest,
  };
}

/** The entry a charge must be stored as (state aside: see `withoutState`). */
function entryOf(record: ChargeRecord): Omit<LedgerEntry, 'state'> {
  return {
    id: record.id,
    accountId: record.accountId,
    keyId: record.keyId,
    kind: 'charge',
    amountMicros: -record.costMicros,
    model: record.model,
    usage: { ...record.usage },
    day: record.day,
    month: record.month,
    reference: null,
    createdAt: record.createdAt,
  };
}

// The entry handed back by a call may still be `pending` on a store that counts in steps; what it
// records is compared, and `state` only where it must be final (read after the call).
function withoutState(entry: LedgerEntry): Omit<LedgerEntry, 'state'> {
  const { state: _state, ...rest } = entry;
  return rest;
}

/** Every entry of the account, read page by page with the given page size. */
async function allEntries(
  money: MoneyStore,
  accountId: string,
  pageSize: number,
  kind?: LedgerKind,
): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for (;;) {
    const last = entries.at(-1);
    const before = last === undefined ? undefined : { createdAt: last.createdAt, id: last.id };
    const page = await money.listLedger(accountId, { limit: pageSize, before, kind });
    expect(page.length).toBeLessThanOrEqual(pageSize);
    entries.push(...page);
    if (page.length < pageSize) return entries;
  }
}

/** Newest first: creation time descending, then id descending (ids here are ASCII). */
function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** A deterministic pseudo-random sequence (mulberry32), so failures reproduce. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

function add<K>(sums: Map<K, bigint>, key: K, amount: bigint): void {
  sums.set(key, (sums.get(key) ?? 0n) + amount);
}

/** What a set of charges (each counted once) must add up to in every total. */
function expectedTotals(records: readonly ChargeRecord[]) {
  const wallets = new Map<string, bigint>();
  const keySpend = new Map<string, bigint>();
  const usage = new Map<
    string,
    { requests: number; inputTokens: number; outputTokens: number; cost: bigint }
  >();
  for (const record of records) {
    add(wallets, record.accountId, -record.costMicros);
    if (record.keyId !== null)
      add(keySpend, `${record.accountId}|${record.keyId}|${record.month}`, record.costMicros);
    const key = `${record.accountId}|${record.day}|${record.model}`;
    const row = usage.get(key) ?? { requests: 0, inputTokens: 0, outputTokens: 0, cost: 0n };
    usage.set(key, {
      requests: row.requests + record.usage.requests,
      inputTokens: row.inputTokens + record.usage.inputTokens,
      outputTokens: row.outputTokens + record.usage.outputTokens,
      cost: row.cost + record.costMicros,
    });
  }
  return { wallets, keySpend, usage };
}

/** Compares every total the store holds for these accounts with the independently computed sums. */
async function expectTotals(money: MoneyStore, records: readonly ChargeRecord[]): Promise<void> {
  const expected = expectedTotals(records);
  for (const [accountId, balance] of expected.wallets) {
    expect((await money.walletState(accountId)).balance, `wallet ${accountId}`).toBe(balance);
  }
  for (const [key, spent] of expected.keySpend) {
    const [accountId = '', keyId = '', month = ''] = key.split('|');
    expect((await money.keySpendState(accountId, keyId, month)).spent, `key spend ${key}`).toBe(spent);
  }
  for (const accountId of expected.wallets.keys()) {
    const rows = await money.listUsage(accountId, '0000-01-01', '9999-12-31');
    const want = [...expected.usage]
      .filter(([key]) => key.startsWith(`${accountId}|`))
      .map(([key, row]) => {
        const [, date = '', model = ''] = key.split('|');
        const { cost, ...counts } = row;
        return { date, model, ...counts, costMicros: cost };
      })
      .sort((a, b) => (a.date === b.date ? compare(a.model, b.model) : compare(a.date, b.date)));
    expect(rows, `usage of ${accountId}`).toEqual(want);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The contract every MoneyStore keeps (shared/src/billing/money-store.ts), run against a fresh store
 * per case.
 */
export function moneyContract<T extends OpenedMoneyStore>(
  open: () => Promise<T>,
  options: MoneyContractOptions<T> = {},
): void {
  let store: T;
  let money: MoneyStore;

  beforeEach(async () => {
    store = await open();
    money = store.money;
  });

  afterEach(async () => {
    await store.close();
  });

  describe('recordCharges', () => {
    it('counts a charge once in the wallet, the key month spend, the usage row and the ledger', async () => {
      const record = charge('req-1', {
        costMicros: 1_234_567n,
        usage: { requests: 1, inputTokens: 7, outputTokens: 9 },
      });
      const [result] = await money.recordCharges([record]);

      expect(result?.outcome).toBe('recorded');
      expect(withoutState(result?.entry as LedgerEntry)).toEqual(entryOf(record));
      expect(result?.wallet?.balance).toBe(-1_234_567n);
      expect(result?.wallet?.version).toBeGreaterThan(0n);
      expect(result?.keySpend?.spent).toBe(1_234_567n);
      expect(result?.keySpend?.version).toBeGreaterThan(0n);

      expect(await money.walletState('acc-1')).toEqual(result?.wallet);
      expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual(result?.keySpend);
      expect(await money.findEntry('req-1')).toEqual({ ...entryOf(record), state: 'applied' });
      expect(await money.listLedger('acc-1', { limit: 10 })).toEqual([
        { ...entryOf(record), state: 'applied' },
      ]);
      expect(await money.listUsage('acc-1', '2025-03-01', '2025-03-01')).toEqual([
        {
          date: '2025-03-01',
          model: 'gpt-test',
          requests: 1,
          inputTokens: 7,
          outputTokens: 9,
          costMicros: 1_234_567n,
        },
      ]);
      expect(await money.checkLedger()).toEqual([]);
    });

    it('returns one result per charge, in order', async () => {
      const records = ['c', 'a', 'b'].map((id, i) => charge(id, { costMicros: BigInt(i + 1) }));
      const results = await money.recordCharges(records);
      expect(results.map((r) => [r.outcome, r.entry.id, r.entry.amountMicros])).toEqual([
        ['recorded', 'c', -1n],
        ['recorded', 'a', -2n],
        ['recorded', 'b', -3n],
      ]);
    });

    it('reports with each recorded charge a wallet and key spend that already count it', async () => {
      // What Redis's snapshots are set from when the call's holds are dropped: a state without the
      // charge would let its hold go while the snapshot still lacks its cost.
      const costs = [5n, 7n, 11n];
      const results = await money.recordCharges(
        costs.map((cost, i) => charge(`w-${i}`, { costMicros: cost })),
      );
      let counted = 0n;
      results.forEach((result, i) => {
        counted += costs[i] as bigint;
        expect(result.wallet?.balance).toBeLessThanOrEqual(-counted);
        expect(result.keySpend?.spent).toBeGreaterThanOrEqual(counted);
      });
      const last = results.at(-1);
      expect(await money.walletState('acc-1')).toEqual(last?.wallet);
      expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual(last?.keySpend);
    });

    it('records nothing for an empty call', async () => {
      expect(await money.recordCharges([])).toEqual([]);
      expect(await money.walletState('acc-1')).toEqual({ balance: 0n, version: 0n });
    });

    it('treats the same id in a later call as a repeat carrying the first cost, changing nothing', async () => {
      const first = charge('req-1', { costMicros: 500n });
      await money.recordCharges([first]);
      const wallet = await money.walletState('acc-1');
      const keySpend = await money.keySpendState('acc-1', 'key-1', '2025-03');
      const usage = await money.listUsage('acc-1', '2025-03-01', '2025-03-31');

      const results = await money.recordCharges([
        charge('req-1', { costMicros: 500n }),
        charge('req-1', { costMicros: 9_999n, at: 5_000, model: 'other', day: '2025-03-02' }),
      ]);

      for (const result of results) {
        expect(result.outcome).toBe('repeat');
        expect(withoutState(result.entry)).toEqual(entryOf(first));
        expect(result.wallet).toBeNull();
        expect(result.keySpend).toBeNull();
      }
      expect(await money.walletState('acc-1')).toEqual(wallet);
      expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual(keySpend);
      expect(await money.listUsage('acc-1', '2025-03-01', '2025-03-31')).toEqual(usage);
      expect(await money.listLedger('acc-1', { limit: 10 })).toHaveLength(1);
    });

    it('treats an id repeated within one call as a repeat of its first occurrence', async () => {
      const results = await money.recordCharges([
        charge('req-1', { costMicros: 300n }),
        charge('req-2', { costMicros: 40n }),
        charge('req-1', { costMicros: 7_000n }),
      ]);

      expect(results.map((r) => r.outcome)).toEqual(['recorded', 'recorded', 'repeat']);
      expect(results[2]?.entry.amountMicros).toBe(-300n);
      expect(results[2]?.wallet).toBeNull();
      expect((await money.walletState('acc-1')).balance).toBe(-340n);
      expect((await money.keySpendState('acc-1', 'key-1', '2025-03')).spent).toBe(340n);
      const [row] = await money.listUsage('acc-1', '2025-03-01', '2025-03-01');
      expect(row?.requests).toBe(2);
      expect(row?.costMicros).toBe(340n);
    });

    it('sums many charges of several accounts, keys, days and models in one call exactly', async () => {
      const random = randomSource(20250301);
      const accounts = ['acc-a', 'acc-b', 'acc-c'];
      const keys = ['key-x', 'key-y', null];
      const days = ['2025-02-28', '2025-03-01', '2025-03-02'];
      const models = ['m-1', 'm-2', 'm-3'];
      const records = Array.from({ length: 150 }, (_, i) => {
        const day = days[random(days.length)] as string;
        const accountId = accounts[random(accounts.length)] as string;
        const key = keys[random(keys.length)] ?? null;
        return charge(`bulk-${String(i).padStart(3, '0')}`, {
          accountId,
          keyId: key === null ? null : `${accountId}-${key}`,
          day,
          month: day.slice(0, 7),
          model: models[random(models.length)] as string,
          costMicros: BigInt(random(10_000_000)) * 1_000_003n,
          usage: { requests: 1 + random(3), inputTokens: random(5_000), outputTokens: random(9_000) },
          at: random(60_000),
        });
      });

      const results = await money.recordCharges(records);

      expect(results.every((r) => r.outcome === 'recorded')).toBe(true);
      await expectTotals(money, records);
      for (const accountId of accounts) {
        const own = records.filter((r) => r.accountId === accountId);
        expect(await allEntries(money, accountId, 1_000)).toHaveLength(own.length);
      }
      expect(await money.checkLedger()).toEqual([]);
    });

    it('touches no key spend for a charge without a key', async () => {
      await money.recordCharges([charge('keyed', { costMicros: 100n })]);
      const before = await money.keySpendState('acc-1', 'key-1', '2025-03');

      const [result] = await money.recordCharges([charge('keyless', { keyId: null, costMicros: 70n })]);

      expect(result?.outcome).toBe('recorded');
      expect(result?.entry.keyId).toBeNull();
      expect(result?.keySpend).toBeNull();
      expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual(before);
      expect((await money.walletState('acc-1')).balance).toBe(-170n);
      expect((await money.findEntry('keyless'))?.keyId).toBeNull();
    });

    it('grows the wallet and key spend versions strictly with each change', async () => {
      const walletVersions: bigint[] = [];
      const spendVersions: bigint[] = [];
      for (let i = 0; i < 4; i += 1) {
        const [result] = await money.recordCharges([charge(`v-${i}`, { costMicros: 10n, at: i })]);
        walletVersions.push(result?.wallet?.version as bigint);
        spendVersions.push(result?.keySpend?.version as bigint);
        expect(await money.walletState('acc-1')).toEqual(result?.wallet);
        expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual(result?.keySpend);
      }
      const credited = await money.recordTopUp(topUp('t-1', { amountMicros: 1n }));
      walletVersions.push(credited.wallet.version);
      const [keyless] = await money.recordCharges([charge('v-keyless', { keyId: null, costMicros: 1n })]);
      walletVersions.push(keyless?.wallet?.version as bigint);

      for (const versions of [walletVersions, spendVersions]) {
        expect(versions[0]).toBeGreaterThan(0n);
        for (let i = 1; i < versions.length; i += 1) {
          expect(versions[i]).toBeGreaterThan(versions[i - 1] as bigint);
        }
      }
      expect((await money.walletState('acc-1')).balance).toBe(-40n + 1n - 1n);
    });

    it('keeps amounts beyond 2^53 µIRT exact', async () => {
      const credit = 2n ** 60n + 7n;
      const cost = TWO_POW_53 + 3n;
      await money.recordTopUp(topUp('big-top-up', { amountMicros: credit }));
      const results = await money.recordCharges([
        charge('big-1', { costMicros: cost }),
        charge('big-2', { costMicros: cost, at: 1 }),
      ]);

      expect(results.map((r) => r.outcome)).toEqual(['recorded', 'recorded']);
      expect((await money.walletState('acc-1')).balance).toBe(credit - 2n * cost);
      expect((await money.keySpendState('acc-1', 'key-1', '2025-03')).spent).toBe(2n * cost);
      const [row] = await money.listUsage('acc-1', '2025-03-01', '2025-03-01');
      expect(row?.costMicros).toBe(2n * cost);
      expect((await money.findEntry('big-1'))?.amountMicros).toBe(-cost);
      expect((await money.findEntry('big-top-up'))?.amountMicros).toBe(credit);
      expect(await money.checkLedger()).toEqual([]);
    });

    it('counts concurrent calls with overlapping ids once per id', async () => {
      const accounts = ['acc-p', 'acc-q', 'acc-r'];
      // Call i takes ids 15·i … 15·i + 24: ten of them are also in call i + 1.
      const distinct = new Map<string, ChargeRecord>();
      const calls = Array.from({ length: 20 }, (_, call) =>
        Array.from({ length: 25 }, (_, j) => {
          const n = call * 15 + j;
          const accountId = accounts[n % accounts.length] as string;
          const record = charge(`conc-${String(n).padStart(4, '0')}`, {
            accountId,
            keyId: n % 4 === 0 ? null : `${accountId}-key-${n % 2}`,
            model: `m-${n % 3}`,
            day: `2025-03-0${1 + (n % 5)}`,
            // An id carries the same cost in every call, so which call counts it does not matter.
            costMicros: BigInt(n) * 1_000n + 17n,
            at: n,
          });
          distinct.set(record.id, record);
          return record;
        }),
      );

      const results = await Promise.all(calls.map((records) => money.recordCharges(records)));

      const recordedBy = new Map<string, number>();
      for (const result of results.flat()) {
        expect(['recorded', 'repeat', 'in_progress']).toContain(result.outcome);
        if (result.outcome === 'recorded')
          recordedBy.set(result.entry.id, (recordedBy.get(result.entry.id) ?? 0) + 1);
      }
      expect(recordedBy.size).toBe(distinct.size);
      expect([...recordedBy.values()].every((times) => times === 1)).toBe(true);
      await expectTotals(money, [...distinct.values()]);
      let entries = 0;
      for (const accountId of accounts) entries += (await allEntries(money, accountId, 100)).length;
      expect(entries).toBe(distinct.size);
      expect(await money.checkLedger()).toEqual([]);
    });
  });

  describe('recordTopUp', () => {
    it('credits once per id; a repeat returns the first entry and the unchanged wallet', async () => {
      const first = await money.recordTopUp(topUp('top-1', { amountMicros: 2_500_000n }));

      expect(first.created).toBe(true);
      expect(withoutState(first.entry)).toEqual({
        id: 'top-1',
        accountId: 'acc-1',
        keyId: null,
        kind: 'topup',
        amountMicros: 2_500_000n,
        model: null,
        usage: null,
        day: '2025-03-01',
        month: '2025-03',
        reference: 'ref-top-1',
        createdAt: new Date(BASE),
      });
      expect(first.wallet.balance).toBe(2_500_000n);
      expect(first.wallet.version).toBeGreaterThan(0n);

      const again = await money.recordTopUp(
        topUp('top-1', { amountMicros: 9_000_000n, reference: 'other', at: 60_000 }),
      );

      expect(again.created).toBe(false);
      expect(withoutState(again.entry)).toEqual(withoutState(first.entry));
      expect(again.wallet).toEqual(first.wallet);
      expect(await money.walletState('acc-1')).toEqual(first.wallet);
      expect(await money.findEntry('top-1')).toEqual({ ...withoutState(first.entry), state: 'applied' });
    });

    it('returns the current wallet on a repeat after other changes', async () => {
      await money.recordTopUp(topUp('top-1', { amountMicros: 1_000n }));
      await money.recordCharges([charge('req-1', { costMicros: 300n })]);

      const again = await money.recordTopUp(topUp('top-1', { amountMicros: 1_000n }));

      expect(again.created).toBe(false);
      expect(again.wallet).toEqual(await money.walletState('acc-1'));
      expect(again.wallet.balance).toBe(700n);
    });
  });

  describe('reads', () => {
    it('has 0 at version 0 for an unknown wallet or key spend, and nothing else', async () => {
      await money.recordCharges([charge('req-1')]);

      expect(await money.walletState('nobody')).toEqual({ balance: 0n, version: 0n });
      expect(await money.keySpendState('nobody', 'key-unknown', '2025-03')).toEqual({
        spent: 0n,
        version: 0n,
      });
      expect(await money.keySpendState('acc-1', 'key-1', '2025-04')).toEqual({ spent: 0n, version: 0n });
      // MongoDB keeps one version per account and month for all its keys, so a key without spend in
      // a month another key of its account spent in may carry that version; its spend is still 0.
      expect((await money.keySpendState('acc-1', 'key-unknown', '2025-03')).spent).toBe(0n);
      expect(await money.findEntry('missing')).toBeNull();
      expect(await money.listLedger('nobody', { limit: 10 })).toEqual([]);
      expect(await money.listUsage('nobody', '2000-01-01', '2999-12-31')).toEqual([]);
    });

    it('lists the ledger newest first, by creation time then id, a page at a time', async () => {
      const charges = Array.from({ length: 14 }, (_, i) =>
        // Three entries share each creation time, so the id decides among them.
        charge(`l-${String((i * 5) % 14).padStart(2, '0')}`, {
          at: Math.floor(i / 3) * 1_000,
          costMicros: 1n,
        }),
      );
      await money.recordCharges(charges);
      for (const [i, at] of [500, 2_000, 9_000].entries()) {
        await money.recordTopUp(topUp(`t-${i}`, { at, amountMicros: 10n }));
      }
      await money.recordCharges([charge('other-account', { accountId: 'acc-2', at: 1_000 })]);
      const expected = [
        ...charges.map((c) => ({ createdAt: c.createdAt, id: c.id })),
        ...[500, 2_000, 9_000].map((at, i) => ({ createdAt: new Date(BASE + at), id: `t-${i}` })),
      ].sort(newestFirst);

      const firstPage = await money.listLedger('acc-1', { limit: 4 });
      expect(firstPage.map((e) => e.id)).toEqual(expected.slice(0, 4).map((e) => e.id));
      expect(firstPage.every((e) => e.state === 'applied')).toBe(true);

      for (const pageSize of [1, 4, 5, 17, 50]) {
        const ids = (await allEntries(money, 'acc-1', pageSize)).map((e) => e.id);
        expect(ids, `pages of ${pageSize}`).toEqual(expected.map((e) => e.id));
      }

      const topUps = await allEntries(money, 'acc-1', 2, 'topup');
      expect(topUps.map((e) => e.id)).toEqual(['t-2', 't-1', 't-0']);
      const chargesOnly = await allEntries(money, 'acc-1', 3, 'charge');
      expect(chargesOnly.map((e) => e.id)).toEqual(
        expected.filter((e) => e.id.startsWith('l-')).map((e) => e.id),
      );
      expect(await money.listLedger('acc-1', { limit: 5, kind: 'adjustment' })).toEqual([]);

      const cursor = expected[5] as { createdAt: Date; id: string };
      const afterCursor = await money.listLedger('acc-1', { limit: 3, before: cursor });
      expect(afterCursor.map((e) => e.id)).toEqual(expected.slice(6, 9).map((e) => e.id));
    });

    it("answers each named key's month spend and its newest charge of any month", async () => {
      await money.recordCharges([
        charge('k-feb', { keyId: 'key-a', month: '2025-02', day: '2025-02-27', costMicros: 5n, at: 9_000 }),
        charge('k-1', { keyId: 'key-a', costMicros: 100n, at: 3_000 }),
        // Written after a later one (a retried batch): the last use stays the later time.
        charge('k-2', { keyId: 'key-a', costMicros: 20n, at: 7_000 }),
        charge('k-3', { keyId: 'key-b', costMicros: 1n, at: 1_000 }),
        charge('other', { accountId: 'acc-2', keyId: 'key-c', costMicros: 9n, at: 50_000 }),
      ]);
      await money.recordCharges([charge('k-late', { keyId: 'key-a', costMicros: 3n, at: 5_000 })]);
      // A repeat changes nothing, its later time included.
      await money.recordCharges([charge('k-1', { keyId: 'key-a', costMicros: 100n, at: 90_000 })]);
      await money.recordCharges([
        charge('k-old-month', { keyId: 'key-b', month: '2025-01', day: '2025-01-31', at: -5_000 }),
      ]);

      const summaries = await money.keySpendsOf('acc-1', ['key-b', 'key-a', 'key-never', 'key-c'], '2025-03');

      expect(summaries).toEqual([
        { keyId: 'key-b', spentMicros: 1n, lastUsedAt: new Date(BASE + 1_000) },
        // February's charge is the newest; March's spend counts only March.
        { keyId: 'key-a', spentMicros: 123n, lastUsedAt: new Date(BASE + 9_000) },
        { keyId: 'key-never', spentMicros: 0n, lastUsedAt: null },
        // Another account's key is not this account's.
        { keyId: 'key-c', spentMicros: 0n, lastUsedAt: null },
      ]);
      expect(await money.keySpendsOf('acc-1', ['key-a'], '2025-02')).toEqual([
        { keyId: 'key-a', spentMicros: 5n, lastUsedAt: new Date(BASE + 9_000) },
      ]);
      expect(await money.keySpendsOf('acc-1', [], '2025-03')).toEqual([]);
    });

    it('lists usage of an inclusive day range, by date then model', async () => {
      const days = ['2025-02-27', '2025-02-28', '2025-03-01', '2025-03-02'];
      const records = days.flatMap((day, i) =>
        ['m-b', 'm-a'].map((model, j) =>
          charge(`u-${i}-${j}`, { day, month: day.slice(0, 7), model, costMicros: BigInt(100 * i + j) }),
        ),
      );
      await money.recordCharges(records);
      await money.recordCharges([
        charge('u-other', { accountId: 'acc-2', day: '2025-02-28', month: '2025-02' }),
      ]);

      const rows = await money.listUsage('acc-1', '2025-02-28', '2025-03-01');

      expect(rows.map((r) => [r.date, r.model, r.costMicros])).toEqual([
        ['2025-02-28', 'm-a', 101n],
        ['2025-02-28', 'm-b', 100n],
        ['2025-03-01', 'm-a', 201n],
        ['2025-03-01', 'm-b', 200n],
      ]);
      expect(await money.listUsage('acc-1', '2025-03-02', '2025-03-02')).toHaveLength(2);
      expect(await money.listUsage('acc-1', '2025-03-03', '2025-03-31')).toEqual([]);
    });
  });

  describe('ledger check and recovery', () => {
    it('finds nothing to recover or report on a consistent store', async () => {
      await money.recordTopUp(topUp('top-1'));
      await money.recordCharges([charge('req-1'), charge('req-2', { accountId: 'acc-2', keyId: null })]);

      expect(await money.recoverEntries(new Date(Date.now() + 3_600_000))).toEqual([]);
      expect(await money.checkLedger()).toEqual([]);
    });

    it.skipIf(options.tamper === undefined)('reports a wallet altered behind the store’s back', async () => {
      await money.recordTopUp(topUp('top-1', { amountMicros: 5_000n }));
      await money.recordCharges([
        charge('req-1', { costMicros: 1_200n }),
        charge('req-2', { accountId: 'acc-2' }),
      ]);
      expect(await money.checkLedger()).toEqual([]);

      await options.tamper?.(store, 'acc-1');

      const differences = await money.checkLedger();
      expect(differences).toHaveLength(1);
      expect(differences[0]?.accountId).toBe('acc-1');
      expect(differences[0]?.ledgerMicros).toBe(3_800n);
      expect(differences[0]?.balanceMicros).toBe((await money.walletState('acc-1')).balance);
      expect(differences[0]?.balanceMicros).not.toBe(3_800n);
    });
  });
}
