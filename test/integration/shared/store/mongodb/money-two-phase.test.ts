/**
 * The MongoDB money store's two-phase commit under billing: an entry is inserted pending under a
 * lease, counted in each target guarded by its marker, marked applied, then its markers are cleared
 * and it is closed (in line, before the call answers). A crash between the steps is completed exactly
 * once, by recovery or by a repeated settlement once the lease ran out; never while it runs.
 */
import { describe, expect, it } from 'vitest';
import type { SettleInput } from '../../../../../shared/src/billing/billing.ts';
import { dayOf, monthOf } from '../../../../../shared/src/billing/billing-time.ts';
import { chargeRecord } from '../../../../../shared/src/billing/settle-charge.ts';
import {
  applyToTarget,
  applyToTargetOnce,
  finishEntry,
  LEASE_MS,
} from '../../../../../shared/src/store/mongodb/money/guarded-apply.ts';
import type { LedgerDoc } from '../../../../../shared/src/store/mongodb/money/ledger.mongo.ts';
import { markerOf } from '../../../../../shared/src/store/mongodb/money/pending-marker.ts';
import { pendingChargeDoc } from '../../../../../shared/src/store/mongodb/money/record-charges.mongo.ts';
import { freshId, testClock } from '../../billing/billing-fixture.ts';
import { useMongoMoneyFixture } from './mongo-money-fixture.ts';

const clock = testClock('2026-05-10T12:00:00Z');
const fx = useMongoMoneyFixture({ clock });

const IRT = 1_000_000n;
const ZONE = 'Asia/Tehran';
const MODEL = 'demo/chat';
const TARGETS = ['wallet', 'key_spend', 'usage_daily'] as const;

async function fundedAccount(balanceIrt = 1_000n) {
  const accountId = freshId('acct');
  await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  return { accountId, keyId: freshId('key') };
}

function charge(accountId: string, keyId: string | null, costMicros = 7n * IRT): SettleInput {
  return {
    requestId: freshId('req'),
    accountId,
    keyId,
    model: MODEL,
    costMicros,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

/** What settling `input` now inserts, for driving the steps one by one as a crashed process would have. */
function pendingEntry(input: SettleInput): LedgerDoc {
  return pendingChargeDoc(chargeRecord(input, clock(), ZONE, clock()), clock());
}

/** The stored targets of an account's key and today's usage row (with their markers). */
async function targets(accountId: string, keyId: string) {
  const wallet = await fx.collections.wallets.findById(accountId);
  const spend = await fx.store.money.keySpendState(accountId, keyId, monthOf(clock(), ZONE));
  const usage = await fx.usageRow(accountId, dayOf(clock(), ZONE), MODEL);
  return { wallet, spend, usage };
}

/** What is held in Redis against a wallet (0 once every hold is dropped). */
async function walletHolds(accountId: string): Promise<number> {
  return fx.redis.zcard(fx.deps.keys.walletHolds(accountId).expiries);
}

function admission(input: SettleInput, estimateMicros: bigint) {
  return {
    requestId: input.requestId,
    accountId: input.accountId,
    keyId: input.keyId ?? '',
    rateLimit: 100_000,
    monthlyCapMicros: null,
    modelAllowed: true,
    estimateMicros,
  };
}

describe('settle on MongoDB', () => {
  it('answers with the entry applied and closed, and no marker left on any target', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = charge(accountId, keyId);
    expect(await fx.billing.settle(input)).toMatchObject({ created: true });
    // Markers are cleared in line: nothing is left for later, not even for a flush.
    expect(await fx.collections.ledger.findById(input.requestId)).toMatchObject({
      state: 'applied',
      open: false,
    });
    const { wallet, spend, usage } = await targets(accountId, keyId);
    expect(wallet).toMatchObject({ balance: 993n * IRT, pending: {} });
    expect(spend.spent).toBe(7n * IRT);
    expect(usage).toMatchObject({
      requests: 1,
      input_tokens: 100,
      output_tokens: 20,
      cost: 7n * IRT,
      pending: {},
    });
    expect(await fx.db.collection('key_spend').findOne({ account_id: accountId })).toMatchObject({
      pending: {},
    });
  });

  it('leaves no open entry and no marker after a deferred batch', async () => {
    const { accountId, keyId } = await fundedAccount();
    const inputs = [1n, 2n, 3n].map((cost) => charge(accountId, keyId, cost * IRT));
    for (const input of inputs) fx.billing.settleDeferred(input);
    await fx.billing.flush();
    for (const input of inputs) {
      expect(await fx.collections.ledger.findById(input.requestId)).toMatchObject({
        state: 'applied',
        open: false,
      });
    }
    const { wallet, usage } = await targets(accountId, keyId);
    expect(wallet).toMatchObject({ balance: 994n * IRT, pending: {} });
    expect(usage).toMatchObject({ requests: 3, cost: 6n * IRT, pending: {} });
  });

  it('marks an id that is not a safe field name by a digest, and clears it', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = { ...charge(accountId, keyId, IRT), requestId: `${freshId('req')}.with$odd chars` };
    expect(markerOf(input.requestId)).toMatch(/^~[0-9a-f]{64}$/);
    expect(markerOf('req_plain-1:2')).toBe('req_plain-1:2');
    await fx.billing.settle(input);
    expect(await fx.billing.settle(input)).toMatchObject({ created: false, costMicros: IRT });
    const { wallet, usage } = await targets(accountId, keyId);
    expect(wallet).toMatchObject({ balance: 999n * IRT, pending: {} });
    expect(usage).toMatchObject({ requests: 1, pending: {} });
  });
});

describe('markers', () => {
  it('a target carrying an entry’s marker does not count it again, until the entry is finished', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingEntry(charge(accountId, keyId, 5n * IRT));
    expect(await fx.collections.ledger.insertPending(entry)).toBe(true);
    expect(await fx.collections.ledger.insertPending(entry)).toBe(false);
    const first = await applyToTargetOnce(fx.collections, [entry], 'wallet');
    const second = await applyToTargetOnce(fx.collections, [entry], 'wallet');
    expect(first).toMatchObject({ applied: true, doc: { balance: 995n * IRT } });
    expect(first.doc?.pending).toEqual({ [markerOf(entry._id)]: true });
    expect(second).toMatchObject({ applied: false, doc: { balance: 995n * IRT } });
    for (const target of ['key_spend', 'usage_daily'] as const) {
      await applyToTarget(fx.collections, entry, target);
      await applyToTarget(fx.collections, entry, target);
    }
    await fx.collections.ledger.markApplied(entry._id);
    await finishEntry(fx.collections, entry);
    await finishEntry(fx.collections, entry);
    expect(await fx.collections.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
    const { wallet, spend, usage } = await targets(accountId, keyId);
    expect(wallet).toMatchObject({ balance: 995n * IRT, pending: {} });
    expect(spend.spent).toBe(5n * IRT);
    expect(usage).toMatchObject({ requests: 1, cost: 5n * IRT, pending: {} });
  });
});

// Claims and recoveries take turns here: the test server (jongodb) evaluates a conditional update's
// filter and applies its change apart, so two claims racing for one entry may both succeed there
// (MongoDB applies a single-document update atomically), and a racing guarded increment may count
// twice.
describe('claims', () => {
  it('a pending entry is claimed only once its lease ran out, then by no one while the claim lasts', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingEntry(charge(accountId, keyId, 2n * IRT));
    await fx.collections.ledger.insertPending(entry);
    const claim = () =>
      fx.collections.ledger.claim(entry._id, clock(), new Date(clock().getTime() + LEASE_MS));
    expect(await claim()).toBeNull();
    clock.advance(LEASE_MS + 1);
    expect(await claim()).toMatchObject({
      _id: entry._id,
      state: 'pending',
      lease_until: new Date(clock().getTime() + LEASE_MS),
    });
    expect(await claim()).toBeNull();
    // The claimer holds a new lease: recovery leaves the entry to it.
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    clock.advance(LEASE_MS + 1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(1);
    // Applied: never claimed again.
    clock.advance(LEASE_MS + 1);
    expect(await claim()).toBeNull();
    expect(await fx.billing.balanceOf(accountId)).toBe(998n * IRT);
  });

  it('recovery completes each abandoned entry once; another replica after it finds nothing left', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entries = [1n, 2n, 3n, 4n, 5n].map((cost) => pendingEntry(charge(accountId, keyId, cost * IRT)));
    for (const entry of entries) await fx.collections.ledger.insertPending(entry);
    clock.advance(LEASE_MS + 1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(5);
    expect(await fx.replica().recoverPendingEntries(0)).toBe(0);
    const { wallet, spend, usage } = await targets(accountId, keyId);
    expect(wallet).toMatchObject({ balance: 985n * IRT, pending: {} });
    expect(spend.spent).toBe(15n * IRT);
    expect(usage).toMatchObject({ requests: 5, cost: 15n * IRT, pending: {} });
  });
});

describe('recovery after a crash between the steps', () => {
  it('completes an entry applied to the wallet only, exactly once', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingEntry(charge(accountId, keyId, 5n * IRT));
    expect(await fx.collections.ledger.insertPending(entry)).toBe(true);
    await applyToTarget(fx.collections, entry, 'wallet');
    // The wallet carries the pending entry's marker: the invariant holds mid-way.
    expect(await fx.billing.checkLedger()).toEqual([]);
    // Within its lease, the entry belongs to its (presumed alive) driver.
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    clock.advance(LEASE_MS + 1);
    expect(await fx.billing.recoverPendingEntries(60_000)).toBe(1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    const { wallet, spend, usage } = await targets(accountId, keyId);
    expect(wallet?.balance).toBe(995n * IRT);
    expect(wallet?.pending).toEqual({});
    expect(spend.spent).toBe(5n * IRT);
    expect(usage).toMatchObject({ requests: 1, cost: 5n * IRT, pending: {} });
    expect(await fx.collections.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
  });

  it('only counts entries created before the age given', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingEntry(charge(accountId, keyId, 5n * IRT));
    await fx.collections.ledger.insertPending(entry);
    clock.advance(LEASE_MS + 1);
    // Created a lease ago: not older than two leases.
    expect(await fx.billing.recoverPendingEntries(2 * LEASE_MS)).toBe(0);
    expect(await fx.billing.recoverPendingEntries(LEASE_MS)).toBe(1);
  });

  it('completes an entry applied everywhere but not marked, and one marked but not cleared', async () => {
    const { accountId, keyId } = await fundedAccount();
    const unmarked = pendingEntry(charge(accountId, keyId, 2n * IRT));
    const uncleared = pendingEntry(charge(accountId, keyId, 3n * IRT));
    for (const entry of [unmarked, uncleared]) {
      await fx.collections.ledger.insertPending(entry);
      for (const target of TARGETS) await applyToTarget(fx.collections, entry, target);
    }
    await fx.collections.ledger.markApplied(uncleared._id);
    expect(await fx.billing.checkLedger()).toEqual([]);
    clock.advance(LEASE_MS + 1);
    // The unmarked entry counts as recovered (once); the uncleared one was counted before, and is
    // only finished. A second replica after it finds nothing left.
    expect(await fx.billing.recoverPendingEntries(0)).toBe(1);
    expect(await fx.replica().recoverPendingEntries(0)).toBe(0);
    const { wallet, spend, usage } = await targets(accountId, keyId);
    expect(wallet?.balance).toBe(995n * IRT);
    expect(wallet?.pending).toEqual({});
    expect(spend.spent).toBe(5n * IRT);
    expect(usage).toMatchObject({ requests: 2, cost: 5n * IRT, pending: {} });
    for (const entry of [unmarked, uncleared]) {
      expect(await fx.collections.ledger.findById(entry._id)).toMatchObject({
        state: 'applied',
        open: false,
      });
    }
  });

  it('lets a repeated settle finish an abandoned entry once its lease ran out, holding meanwhile', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = charge(accountId, keyId, 4n * IRT);
    const entry = pendingEntry(input);
    await fx.collections.ledger.insertPending(entry);
    expect((await fx.billing.admit(admission(input, 5n * IRT))).outcome).toBe('admitted');
    // Still leased: the repeat is in progress elsewhere; it neither applies nor waits, and leaves
    // the hold to the entry's driver (admission sees neither the hold nor the charge otherwise).
    const [inProgress] = await fx.store.money.recordCharges([chargeRecord(input, clock(), ZONE, clock())]);
    expect(inProgress).toMatchObject({ outcome: 'in_progress', wallet: null, keySpend: null });
    expect(await fx.billing.settle(input)).toMatchObject({ created: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT);
    expect(await walletHolds(accountId)).toBe(1);
    clock.advance(LEASE_MS + 1);
    // This call counts the charge (the store answers `recorded`), so it reports `created`, though
    // the entry was inserted by the crashed call.
    expect(await fx.billing.settle(input)).toEqual({
      entryId: entry._id,
      costMicros: 4n * IRT,
      created: true,
    });
    expect(await walletHolds(accountId)).toBe(0);
    expect(await fx.billing.settle(input)).toMatchObject({ created: false, costMicros: 4n * IRT });
    expect(await fx.billing.balanceOf(accountId)).toBe(996n * IRT);
    expect((await targets(accountId, keyId)).spend.spent).toBe(4n * IRT);
    expect(await fx.collections.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
  });

  it('lets a repeated top-up finish an abandoned one once its lease ran out', async () => {
    const accountId = freshId('acct');
    const input = { accountId, amountMicros: 9n * IRT, idempotencyKey: 'abandoned' };
    const first = await fx.billing.topUp(input);
    // As if its driver had crashed after inserting it: put it back to pending, uncounted.
    await fx.db
      .collection<LedgerDoc>('ledger')
      .updateOne(
        { _id: first.entry.id },
        { $set: { state: 'pending', open: true, lease_until: new Date(clock().getTime() + LEASE_MS) } },
      );
    await fx.db.collection<{ _id: string }>('wallets').deleteOne({ _id: accountId });
    expect(await fx.billing.topUp(input)).toMatchObject({ created: false, balanceMicros: 0n });
    clock.advance(LEASE_MS + 1);
    const again = await fx.billing.topUp(input);
    expect(again).toMatchObject({ created: false, balanceMicros: 9n * IRT });
    expect(again.entry.state).toBe('applied');
    expect(await fx.billing.topUp(input)).toMatchObject({ created: false, balanceMicros: 9n * IRT });
    expect(await fx.collections.ledger.findById(first.entry.id)).toMatchObject({
      state: 'applied',
      open: false,
    });
  });
});
