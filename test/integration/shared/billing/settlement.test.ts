import { describe, expect, it } from 'vitest';
import { dayOf, monthOf } from '../../../../shared/src/billing/billing-time.ts';
import { applyToTarget, LEASE_MS } from '../../../../shared/src/billing/guarded-apply.ts';
import type { LedgerDoc } from '../../../../shared/src/billing/ledger.repository.ts';
import { usageDailyId } from '../../../../shared/src/billing/usage-daily.repository.ts';
import { freshId, testClock, useBillingFixture } from './billing-fixture.ts';

const clock = testClock('2026-05-10T12:00:00Z');
const fx = useBillingFixture({ clock });

const IRT = 1_000_000n;
const ZONE = 'Asia/Tehran';

async function fundedAccount(balanceIrt = 1_000n) {
  const accountId = freshId('acct');
  await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  return { accountId, keyId: freshId('key') };
}

function charge(accountId: string, keyId: string | null, costMicros = 7n * IRT) {
  return {
    requestId: freshId('req'),
    accountId,
    keyId,
    model: 'demo/chat',
    costMicros,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

/** What settle inserts, for driving the steps one by one as a crashed process would have. */
function pendingCharge(accountId: string, keyId: string, cost: bigint): LedgerDoc {
  const now = clock();
  return {
    _id: freshId('req'),
    account_id: accountId,
    key_id: keyId,
    kind: 'charge',
    amount: -cost,
    model: 'demo/chat',
    usage: { requests: 1, input_tokens: 100, output_tokens: 20 },
    day: dayOf(now, ZONE),
    month: monthOf(now, ZONE),
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + LEASE_MS),
    created_at: now,
    reference: null,
  };
}

async function targetsOf(accountId: string, keyId: string) {
  const wallet = await fx.deps.store.wallets.findById(accountId);
  const spend = await fx.deps.store.keySpend.findState(accountId, keyId, monthOf(clock(), ZONE));
  const usage = await fx.db
    .collection('usage_daily', { useBigInt64: true })
    .findOne({ _id: usageDailyId(accountId, dayOf(clock(), ZONE), 'demo/chat') as never });
  return { wallet, spend, usage };
}

describe('settle', () => {
  it('charges once when called twice with one request id', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = charge(accountId, keyId);
    const first = await fx.billing.settle(input);
    const second = await fx.billing.settle({ ...input, costMicros: 999n * IRT });
    expect(first).toEqual({ entryId: input.requestId, costMicros: 7n * IRT, created: true });
    expect(second).toEqual({ entryId: input.requestId, costMicros: 7n * IRT, created: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(993n * IRT);
    const charges = (await fx.billing.listLedger(accountId, 10)).filter((e) => e.kind === 'charge');
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      amountMicros: -7n * IRT,
      state: 'applied',
      keyId,
      model: 'demo/chat',
    });
    // `settle` answers once the charge counts; its markers are cleared and the entry closed after.
    await fx.billing.flush();
    expect(await fx.deps.store.ledger.findById(input.requestId)).toMatchObject({ open: false });
    const { spend, usage, wallet } = await targetsOf(accountId, keyId);
    expect(spend.spent).toBe(7n * IRT);
    expect(usage).toMatchObject({ requests: 1, input_tokens: 100, output_tokens: 20, cost: 7n * IRT });
    expect(wallet?.pending).toEqual({});
  });

  it('charges once under 10 concurrent settlements of one request id, from two replicas', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = charge(accountId, keyId);
    const replica = fx.replica();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? replica : fx.billing).settle(input)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await fx.billing.balanceOf(accountId)).toBe(993n * IRT);
    expect((await targetsOf(accountId, keyId)).spend.spent).toBe(7n * IRT);
  });

  it('charges a keyless request to the wallet and usage only, and refuses bad input', async () => {
    const { accountId, keyId } = await fundedAccount();
    await fx.billing.settle(charge(accountId, null, 1n));
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT - 1n);
    expect((await targetsOf(accountId, keyId)).spend.spent).toBe(0n);
    await expect(fx.billing.settle(charge(accountId, null, -1n))).rejects.toThrow(RangeError);
    const fractional = { ...charge(accountId, null), usage: { inputTokens: 1.5, outputTokens: 0 } };
    await expect(fx.billing.settle(fractional)).rejects.toThrow(RangeError);
  });
});

describe('recovery after a crash between the steps', () => {
  it('completes an entry applied to the wallet only, exactly once', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingCharge(accountId, keyId, 5n * IRT);
    expect(await fx.deps.store.ledger.insertPending(entry)).toBe(true);
    await applyToTarget(fx.deps.store, entry, 'wallet');
    // The wallet carries the pending entry's marker: the invariant holds mid-way.
    expect(await fx.billing.checkLedger()).toEqual([]);
    // Within its lease, the entry belongs to its (presumed alive) driver.
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    clock.advance(LEASE_MS + 1);
    expect(await fx.billing.recoverPendingEntries(60_000)).toBe(1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    const { wallet, spend, usage } = await targetsOf(accountId, keyId);
    expect(wallet?.balance).toBe(995n * IRT);
    expect(wallet?.pending).toEqual({});
    expect(spend.spent).toBe(5n * IRT);
    expect(usage).toMatchObject({ requests: 1, cost: 5n * IRT, pending: {} });
    expect(await fx.deps.store.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
  });

  it('completes an entry applied everywhere but not marked, and one marked but not cleared', async () => {
    const { accountId, keyId } = await fundedAccount();
    const unmarked = pendingCharge(accountId, keyId, 2n * IRT);
    const uncleared = pendingCharge(accountId, keyId, 3n * IRT);
    for (const entry of [unmarked, uncleared]) {
      await fx.deps.store.ledger.insertPending(entry);
      for (const target of ['wallet', 'key_spend', 'usage_daily'] as const) {
        await applyToTarget(fx.deps.store, entry, target);
      }
    }
    await fx.deps.store.ledger.markApplied(uncleared._id);
    expect(await fx.billing.checkLedger()).toEqual([]);
    clock.advance(LEASE_MS + 1);
    const replica = fx.replica();
    const counts = await Promise.all([fx.billing.recoverPendingEntries(0), replica.recoverPendingEntries(0)]);
    expect(counts[0] + counts[1]).toBeGreaterThanOrEqual(2);
    const { wallet, spend, usage } = await targetsOf(accountId, keyId);
    expect(wallet?.balance).toBe(995n * IRT);
    expect(wallet?.pending).toEqual({});
    expect(spend.spent).toBe(5n * IRT);
    expect(usage).toMatchObject({ requests: 2, cost: 5n * IRT });
  });

  it('lets a repeated settle finish an abandoned entry once its lease ran out', async () => {
    const { accountId, keyId } = await fundedAccount();
    const entry = pendingCharge(accountId, keyId, 4n * IRT);
    await fx.deps.store.ledger.insertPending(entry);
    const input = { ...charge(accountId, keyId, 4n * IRT), requestId: entry._id };
    // Still leased: the repeat neither applies nor waits.
    expect(await fx.billing.settle(input)).toMatchObject({ created: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT);
    clock.advance(LEASE_MS + 1);
    expect(await fx.billing.settle(input)).toEqual({
      entryId: entry._id,
      costMicros: 4n * IRT,
      created: false,
    });
    expect(await fx.billing.settle(input)).toMatchObject({ created: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(996n * IRT);
    expect((await targetsOf(accountId, keyId)).spend.spent).toBe(4n * IRT);
  });
});
