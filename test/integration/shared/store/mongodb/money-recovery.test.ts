/**
 * Group commit on the MongoDB money store under failure: a batch interrupted between its steps is
 * completed exactly once by recovery, a group update that meets a recovery's marker counts each
 * entry once, two batches creating the same target documents both count, and entries whose key
 * spend update failed are left pending (deferred) for recovery while the others finish.
 */
import { describe, expect, it } from 'vitest';
import type { SettleInput } from '../../../../../shared/src/billing/billing.ts';
import type { BillingDeps } from '../../../../../shared/src/billing/billing-deps.ts';
import type { ChargeRecord } from '../../../../../shared/src/billing/money-store.ts';
import { settleBatch } from '../../../../../shared/src/billing/settle-batch.ts';
import { chargeRecord } from '../../../../../shared/src/billing/settle-charge.ts';
import {
  applyToTarget,
  applyToTargetOnce,
  LEASE_MS,
  type MoneyCollections,
} from '../../../../../shared/src/store/mongodb/money/guarded-apply.ts';
import type { LedgerDoc } from '../../../../../shared/src/store/mongodb/money/ledger.mongo.ts';
import {
  pendingChargeDoc,
  recordChargesMongo,
} from '../../../../../shared/src/store/mongodb/money/record-charges.mongo.ts';
import { captureLogger } from '../../../../helpers/capture-logger.ts';
import { freshId, testClock } from '../../billing/billing-fixture.ts';
import { useMongoMoneyFixture } from './mongo-money-fixture.ts';

const clock = testClock('2026-05-10T12:00:00Z');
const fx = useMongoMoneyFixture({ clock });

const IRT = 1_000_000n;
const ZONE = 'Asia/Tehran';
const TARGETS = ['wallet', 'key_spend', 'usage_daily'] as const;

async function fundedAccount() {
  const accountId = freshId('acct');
  await fx.billing.topUp({ accountId, amountMicros: 1_000n * IRT, idempotencyKey: freshId('t') });
  return { accountId, keyId: freshId('key') };
}

function charge(accountId: string, keyId: string | null, costIrt: bigint): SettleInput {
  return {
    requestId: freshId('req'),
    accountId,
    keyId,
    model: 'demo/chat',
    costMicros: costIrt * IRT,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

/** The charges a batch records, as the billing use cases compute them. */
function batchRecords(accountId: string, keyId: string, costsIrt: bigint[]): ChargeRecord[] {
  return costsIrt.map((cost) => chargeRecord(charge(accountId, keyId, cost), clock(), ZONE, clock()));
}

/** Entries of a batch as step (a) writes them. */
function batchDocs(accountId: string, keyId: string, costsIrt: bigint[]): LedgerDoc[] {
  return batchRecords(accountId, keyId, costsIrt).map((record) => pendingChargeDoc(record, clock()));
}

async function totals(accountId: string, keyId: string) {
  const wallet = await fx.collections.wallets.findById(accountId);
  const spend = await fx.store.money.keySpendState(accountId, keyId, '2026-05');
  const usage = await fx.usageRow(accountId, '2026-05-10', 'demo/chat');
  return { balance: wallet?.balance, walletPending: wallet?.pending, spent: spend.spent, usage };
}

async function recoverAfterLease(): Promise<number> {
  // Within its lease an entry belongs to its (presumed alive) batch writer.
  expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  clock.advance(LEASE_MS + 1);
  return (await fx.billing.recoverPendingEntries(0)) + (await fx.billing.recoverPendingEntries(0));
}

/** The store's collections, with `hook` run right after a batch's step (a), before its step (b). */
function afterInsert(hook: (docs: readonly LedgerDoc[]) => Promise<void>): MoneyCollections {
  const { ledger } = fx.collections;
  return {
    ...fx.collections,
    ledger: {
      ...ledger,
      async insertManyPending(docs) {
        const existing = await ledger.insertManyPending(docs);
        await hook(docs);
        return existing;
      },
    },
  };
}

/** Records a batch through the store's own code, on the given collections. */
function record(collections: MoneyCollections, charges: readonly ChargeRecord[]) {
  return recordChargesMongo(collections, charges, clock(), captureLogger('silent').logger);
}

describe('step (a): the batch insert', () => {
  it('reports the ids that existed already and inserts every other entry', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [1n, 2n, 3n, 4n, 5n]);
    const [, second, , fourth] = docs as [LedgerDoc, LedgerDoc, LedgerDoc, LedgerDoc, LedgerDoc];
    for (const doc of [second, fourth]) expect(await fx.collections.ledger.insertPending(doc)).toBe(true);
    expect(await fx.collections.ledger.insertManyPending(docs)).toEqual(new Set([second._id, fourth._id]));
    for (const doc of docs)
      expect(await fx.collections.ledger.findById(doc._id)).toMatchObject({ state: 'pending' });
    expect(await fx.collections.ledger.insertManyPending(docs)).toEqual(new Set(docs.map((doc) => doc._id)));
    expect(await recoverAfterLease()).toBe(5);
    expect(await totals(accountId, keyId)).toMatchObject({ balance: 985n * IRT, spent: 15n * IRT });
  });
});

describe('a batch interrupted between its steps is completed exactly once by recovery', () => {
  it('after step (a): pending entries, nothing applied', async () => {
    const { accountId, keyId } = await fundedAccount();
    const docs = batchDocs(accountId, keyId, [1n, 2n, 3n]);
    expect(await fx.collections.ledger.insertManyPending(docs)).toEqual(new Set());
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
    await fx.collections.ledger.insertManyPending(docs);
    expect((await applyToTargetOnce(fx.collections, docs, 'wallet')).applied).toBe(true);
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
    await fx.collections.ledger.insertManyPending(docs);
    for (const target of TARGETS) await applyToTargetOnce(fx.collections, docs, target);
    await fx.collections.ledger.markManyApplied(docs.map((doc) => doc._id));
    clock.advance(1);
    // Counted before the crash: recovery only clears their markers and closes them, counting none.
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    const after = await totals(accountId, keyId);
    expect(after).toMatchObject({ balance: 990n * IRT, spent: 10n * IRT, walletPending: {} });
    expect(after.usage).toMatchObject({ requests: 2, cost: 10n * IRT, pending: {} });
    for (const doc of docs) {
      expect(await fx.collections.ledger.findById(doc._id)).toMatchObject({ state: 'applied', open: false });
    }
  });

  it('a group meeting a marker a recovery set counts each entry once', async () => {
    const { accountId, keyId } = await fundedAccount();
    const charges = batchRecords(accountId, keyId, [1n, 10n, 100n]);
    // A recovery claimed the first entry and applied it to the wallet before the batch went on.
    const collections = afterInsert(async ([first]) => {
      await applyToTarget(fx.collections, first as LedgerDoc, 'wallet');
    });
    const results = await record(collections, charges);
    expect(results.map((result) => result.outcome)).toEqual(['recorded', 'recorded', 'recorded']);
    expect(results.at(-1)?.wallet?.balance).toBe(889n * IRT);
    const after = await totals(accountId, keyId);
    expect(after).toMatchObject({ balance: 889n * IRT, spent: 111n * IRT, walletPending: {} });
    expect(after.usage).toMatchObject({ requests: 3, cost: 111n * IRT, pending: {} });
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
  });

  it('over several accounts (one bulk per collection), the group meeting a marker alone goes entry by entry', async () => {
    const first = await fundedAccount();
    const second = await fundedAccount();
    const third = await fundedAccount();
    const firstCharges = batchRecords(first.accountId, first.keyId, [1n, 10n, 100n]);
    const charges = [
      ...firstCharges,
      ...batchRecords(second.accountId, second.keyId, [2n, 20n]),
      ...batchRecords(third.accountId, third.keyId, [3n]),
    ];
    // A recovery applied the first account's first entry to its wallet and key spend meanwhile.
    const collections = afterInsert(async ([entry]) => {
      await applyToTarget(fx.collections, entry as LedgerDoc, 'wallet');
      await applyToTarget(fx.collections, entry as LedgerDoc, 'key_spend');
    });
    const results = await record(collections, charges);
    expect(results.every((result) => result.outcome === 'recorded')).toBe(true);
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
      accounts.flatMap(({ accountId, keyId }) => batchRecords(accountId, keyId, costs));
    // Both batches are inserted before either goes on to step (b).
    let inserted = 0;
    let bothInserted: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      bothInserted = resolve;
    });
    const collections = afterInsert(async () => {
      inserted += 1;
      if (inserted === 2) bothInserted();
      await barrier;
    });
    const results = await Promise.all([
      record(collections, batchOf([1n, 2n])),
      record(collections, batchOf([10n, 20n])),
    ]);
    expect(results.flat().every((result) => result.outcome === 'recorded')).toBe(true);
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
    const keySpend = { ...fx.collections.keySpend, applyOne: failure, applyMany: failure };
    const failing: MoneyCollections = { ...fx.collections, keySpend };
    const { logger, lines } = captureLogger('error');
    // The billing use case over a store whose key spend collection fails.
    const deps: BillingDeps = {
      ...fx.deps,
      logger,
      store: {
        ...fx.store.money,
        recordCharges: (charges) => recordChargesMongo(failing, charges, clock(), logger),
      },
    };
    const inputs = [
      charge(keyed.accountId, keyed.keyId, 3n),
      charge(keyed.accountId, keyed.keyId, 4n),
      charge(keyless.accountId, null, 5n),
      charge(keyless.accountId, null, 6n),
    ];
    for (const input of inputs) {
      const admitted = await fx.billing.admit({
        requestId: input.requestId,
        accountId: input.accountId,
        keyId: input.keyId ?? freshId('key'),
        rateLimit: 1_000,
        monthlyCapMicros: null,
        modelAllowed: true,
        estimateMicros: input.costMicros,
      });
      expect(admitted.outcome).toBe('admitted');
    }
    await settleBatch(
      deps,
      inputs.map((input) => ({ input, at: clock() })),
    );
    // The keyless entries count in every target: applied and closed. The keyed ones stay pending.
    const states = await Promise.all(inputs.map((input) => fx.collections.ledger.findById(input.requestId)));
    expect(states.map((doc) => [doc?.state, doc?.open])).toEqual([
      ['pending', true],
      ['pending', true],
      ['applied', false],
      ['applied', false],
    ]);
    expect(await fx.billing.balanceOf(keyless.accountId)).toBe(989n * IRT);
    const deferred = lines().find((line) => line.msg === 'settlement: entries left for recovery');
    expect(deferred?.entryIds).toEqual([inputs[0]?.requestId, inputs[1]?.requestId]);
    // The holds of the deferred charges stay until they count; the others' are dropped.
    const holds = (accountId: string) => fx.redis.zcard(fx.deps.keys.walletHolds(accountId).expiries);
    expect(await holds(keyless.accountId)).toBe(0);
    expect(await holds(keyed.accountId)).toBe(2);
    expect(await recoverAfterLease()).toBe(2);
    expect(await holds(keyed.accountId)).toBe(0);
    expect(await totals(keyed.accountId, keyed.keyId)).toMatchObject({
      balance: 993n * IRT,
      spent: 7n * IRT,
      walletPending: {},
    });
    expect(await fx.billing.checkLedger()).toEqual([]);
  });
});
