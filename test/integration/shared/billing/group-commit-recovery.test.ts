/**
 * Group commit under failure: a batch interrupted between its steps is completed exactly once by
 * recovery, a group update that meets a recovery's marker counts each entry once, and a batch that
 * cannot be recorded is retried, then settled entry by entry — never dropped.
 */
import { describe, expect, it } from 'vitest';
import type { SettleInput } from '../../../../shared/src/billing/billing.ts';
import type { BillingDeps } from '../../../../shared/src/billing/billing-deps.ts';
import { applyToTarget, applyToTargetOnce, LEASE_MS } from '../../../../shared/src/billing/guarded-apply.ts';
import type { LedgerDoc } from '../../../../shared/src/billing/ledger.repository.ts';
import { commitBatch, insertBatch, settleBatch } from '../../../../shared/src/billing/settle-batch.ts';
import { chargeDoc } from '../../../../shared/src/billing/settle-charge.ts';
import { SettlementBatcher } from '../../../../shared/src/billing/settlement-batcher.ts';
import { freshId, testClock, useBillingFixture } from './billing-fixture.ts';

const clock = testClock('2026-05-10T12:00:00Z');
const fx = useBillingFixture({ clock });

const IRT = 1_000_000n;
const ZONE = 'Asia/Tehran';

async function fundedAccount() {
  const accountId = freshId('acct');
  await fx.billing.topUp({ accountId, amountMicros: 1_000n * IRT, idempotencyKey: freshId('t') });
  return { accountId, keyId: freshId('key') };
}

function charge(accountId: string, keyId: string, costIrt: bigint): SettleInput {
  return {
    requestId: freshId('req'),
    accountId,
    keyId,
    model: 'demo/chat',
    costMicros: costIrt * IRT,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

/** Entries of a batch as step (a) writes them. */
function batchDocs(accountId: string, keyId: string, costsIrt: bigint[]): LedgerDoc[] {
  return costsIrt.map((cost) => chargeDoc(charge(accountId, keyId, cost), clock(), clock(), ZONE));
}

async function totals(accountId: string, keyId: string) {
  const wallet = await fx.deps.store.wallets.findById(accountId);
  const spend = await fx.deps.store.keySpend.findState(accountId, keyId, '2026-05');
  const usage = await fx.db
    .collection('usage_daily', { useBigInt64: true })
    .findOne({ _id: `${accountId}:2026-05-10:demo/chat` as never });
  return { balance: wallet?.balance, walletPending: wallet?.pending, spent: spend.spent, usage };
}

async function recoverAfterLease(): Promise<number> {
  // Within its lease an entry belongs to its (presumed alive) batch writer.
  expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  clock.advance(LEASE_MS + 1);
  return (await fx.billing.recoverPendingEntries(0)) + (await fx.billing.recoverPendingEntries(0));
}

describe('a batch interrupted between its steps is completed exactly once by recovery', () => {
  it('after step (a): pending entries, nothing applied', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [1n, 2n, 3n]);
    expect(await insertBatch(fx.deps, docs)).toEqual(new Set());
    expect(await recoverAfterLease()).toBe(3);
    expect(await totals(accountId, keyId)).toMatchObject({
      balance: 994n * IRT,
      spent: 6n * IRT,
      walletPending: {},
    });
  });

  it('during step (b): the wallet group applied, key spend and usage not', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [1n, 2n, 4n]) as [LedgerDoc, ...LedgerDoc[]];
    await insertBatch(fx.deps, docs);
    expect((await applyToTargetOnce(fx.deps.store, docs, 'wallet')).applied).toBe(true);
    // The wallet carries the pending entries' markers: the invariant holds mid-way.
    expect(await fx.billing.checkLedger()).toEqual([]);
    expect(await recoverAfterLease()).toBe(3);
    const after = await totals(accountId, keyId);
    expect(after).toMatchObject({ balance: 993n * IRT, spent: 7n * IRT, walletPending: {} });
    expect(after.usage).toMatchObject({ requests: 3, cost: 7n * IRT, pending: {} });
  });

  it('after step (c): applied everywhere, markers not cleared', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [5n, 5n]) as [LedgerDoc, ...LedgerDoc[]];
    await insertBatch(fx.deps, docs);
    for (const target of ['wallet', 'key_spend', 'usage_daily'] as const) {
      await applyToTargetOnce(fx.deps.store, docs, target);
    }
    await fx.deps.store.ledger.markManyApplied(docs.map((doc) => doc._id));
    clock.advance(1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(2);
    const after = await totals(accountId, keyId);
    expect(after).toMatchObject({ balance: 990n * IRT, spent: 10n * IRT, walletPending: {} });
    expect(after.usage).toMatchObject({ requests: 2, cost: 10n * IRT, pending: {} });
    expect(await fx.deps.store.ledger.findById(docs[0]._id)).toMatchObject({ state: 'applied', open: false });
  });

  it('a group meeting a marker a recovery set counts each entry once', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [1n, 10n, 100n]);
    await insertBatch(fx.deps, docs);
    // A recovery claimed the first entry and applied it to the wallet before the batch went on.
    await applyToTarget(fx.deps.store, docs[0] as LedgerDoc, 'wallet');
    await commitBatch(fx.deps, docs);
    const after = await totals(accountId, keyId);
    expect(after).toMatchObject({ balance: 889n * IRT, spent: 111n * IRT, walletPending: {} });
    expect(after.usage).toMatchObject({ requests: 3, cost: 111n * IRT, pending: {} });
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  });

  it('over several accounts (one bulk per collection), the group meeting a marker alone goes entry by entry', async () => {
    const first = await fundedAccount();
    const second = await fundedAccount();
    const third = await fundedAccount();
    const firstDocs = batchDocs(first.accountId, first.keyId, [1n, 10n, 100n]);
    const docs = [
      ...firstDocs,
      ...batchDocs(second.accountId, second.keyId, [2n, 20n]),
      ...batchDocs(third.accountId, third.keyId, [3n]),
    ];
    await insertBatch(fx.deps, docs);
    // A recovery applied the first account's first entry to its wallet and key spend meanwhile.
    await applyToTarget(fx.deps.store, firstDocs[0] as LedgerDoc, 'wallet');
    await applyToTarget(fx.deps.store, firstDocs[0] as LedgerDoc, 'key_spend');
    await commitBatch(fx.deps, docs);
    const expected = [
      [first, 111n, 3],
      [second, 22n, 2],
      [third, 3n, 1],
    ] as const;
    for (const [{ accountId, keyId }, cost, requests] of expected) {
      const after = await totals(accountId, keyId);
      expect(after).toMatchObject({ balance: (1_000n - cost) * IRT, spent: cost * IRT, walletPending: {} });
      expect(after.usage).toMatchObject({ requests, cost: cost * IRT, pending: {} });
    }
    expect(await fx.billing.checkLedger()).toEqual([]);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  });

  it('two batches creating the same new target documents at once both count, once each', async () => {
    // No top-up: no wallet, key spend or usage row exists yet, so both bulks upsert the same
    // documents and one of each pair of upserts loses the creation race.
    const accounts = [0, 1, 2].map(() => ({ accountId: freshId('acct'), keyId: freshId('key') }));
    const batchOf = (costs: bigint[]) =>
      accounts.flatMap(({ accountId, keyId }) => batchDocs(accountId, keyId, costs));
    const first = batchOf([1n, 2n]);
    const second = batchOf([10n, 20n]);
    await insertBatch(fx.deps, [...first, ...second]);
    await Promise.all([commitBatch(fx.deps, first), commitBatch(fx.deps, second)]);
    for (const { accountId, keyId } of accounts) {
      const after = await totals(accountId, keyId);
      expect(after).toMatchObject({ balance: -33n * IRT, spent: 33n * IRT, walletPending: {} });
      expect(after.usage).toMatchObject({ requests: 4, cost: 33n * IRT, pending: {} });
    }
    expect(await fx.billing.checkLedger()).toEqual([]);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  });
});

describe('a batch whose key spend update fails', () => {
  it('finishes the entries counted everywhere, leaves the others to recovery, once each', async () => {
    const keyed = await fundedAccount();
    const keyless = await fundedAccount();
    const failure = () => Promise.reject(new Error('key_spend is away'));
    const keySpend = { ...fx.deps.store.keySpend, applyOne: failure, applyMany: failure };
    const deps = { ...fx.deps, store: { ...fx.deps.store, keySpend } };
    const inputs = [
      charge(keyed.accountId, keyed.keyId, 3n),
      charge(keyed.accountId, keyed.keyId, 4n),
      { ...charge(keyless.accountId, '', 5n), keyId: null },
      { ...charge(keyless.accountId, '', 6n), keyId: null },
    ];
    expect(
      await settleBatch(
        deps,
        inputs.map((input) => ({ input, at: clock() })),
      ),
    ).toEqual([]);
    // The keyless entries count in every target: applied and closed. The keyed ones stay pending.
    const states = await Promise.all(inputs.map((input) => fx.deps.store.ledger.findById(input.requestId)));
    expect(states.map((doc) => [doc?.state, doc?.open])).toEqual([
      ['pending', true],
      ['pending', true],
      ['applied', false],
      ['applied', false],
    ]);
    expect(await fx.billing.balanceOf(keyless.accountId)).toBe(989n * IRT);
    expect(await recoverAfterLease()).toBe(2);
    expect(await totals(keyed.accountId, keyed.keyId)).toMatchObject({
      balance: 993n * IRT,
      spent: 7n * IRT,
      walletPending: {},
    });
    expect(await fx.billing.checkLedger()).toEqual([]);
  });
});

describe('a batch that cannot be recorded', () => {
  /** The fixture's stores with a ledger whose batch insert fails `failures` times. */
  function failingInsert(failures: number): {
    deps: BillingDeps;
    calls: () => number;
    sizes: () => number[];
  } {
    let calls = 0;
    const sizes: number[] = [];
    const ledger = {
      ...fx.deps.store.ledger,
      insertManyPending(docs: readonly LedgerDoc[]) {
        calls += 1;
        sizes.push(docs.length);
        if (calls <= failures) return Promise.reject(new Error('MongoDB is away'));
        return fx.deps.store.ledger.insertManyPending(docs);
      },
    };
    return {
      deps: { ...fx.deps, store: { ...fx.deps.store, ledger } },
      calls: () => calls,
      sizes: () => sizes,
    };
  }

  it('is retried with backoff and written once', async () => {
    const { accountId, keyId } = await fundedAccount();
    const { deps, calls } = failingInsert(2);
    const batcher = new SettlementBatcher(deps, { flushMs: 5 });
    for (const cost of [1n, 2n, 3n]) batcher.enqueue(charge(accountId, keyId, cost));
    await batcher.close();
    expect(calls()).toBe(3);
    expect(await totals(accountId, keyId)).toMatchObject({ balance: 994n * IRT, spent: 6n * IRT });
  });

  it('is settled entry by entry once out of retries', async () => {
    const { accountId, keyId } = await fundedAccount();
    const { deps, calls } = failingInsert(Number.POSITIVE_INFINITY);
    const batcher = new SettlementBatcher(deps, { flushMs: 5 });
    for (const cost of [1n, 2n, 3n]) batcher.enqueue(charge(accountId, keyId, cost));
    await batcher.close();
    expect(calls()).toBe(4);
    expect(await totals(accountId, keyId)).toMatchObject({ balance: 994n * IRT, spent: 6n * IRT });
  });

  it('refuses a batch size that is not a positive integer', () => {
    for (const maxBatch of [0, -1, 1.5, Number.NaN])
      expect(() => new SettlementBatcher(fx.deps, { maxBatch })).toThrow(RangeError);
  });

  it('writes one ledger insert per batch, a batch taking at most maxBatch of the charges waiting', async () => {
    const { accountId, keyId } = await fundedAccount();
    const { deps, calls, sizes } = failingInsert(0);
    const batcher = new SettlementBatcher(deps, { flushMs: 5, maxBatch: 100 });
    // The 100th starts a batch at once; the 150 queued while it is written make two more.
    for (let i = 0; i < 250; i++) batcher.enqueue(charge(accountId, keyId, 1n));
    await batcher.close();
    expect(calls()).toBe(3);
    expect(sizes()).toEqual([100, 100, 50]);
    expect(await totals(accountId, keyId)).toMatchObject({ balance: 750n * IRT, spent: 250n * IRT });
  });
});
