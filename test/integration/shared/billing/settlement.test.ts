/**
 * Direct settlement: a charge counts exactly once per request id, in the wallet, the key's month
 * spend and the day's usage row, whichever replica settles it. (A crash between the steps of the
 * MongoDB store, and its recovery: test/integration/shared/store/mongodb/money-two-phase.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { dayOf, monthOf } from '../../../../shared/src/billing/billing-time.ts';
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

/** The account's wallet, the key's month spend and today's usage row of demo/chat, through the store contract. */
async function targetsOf(accountId: string, keyId: string) {
  const day = dayOf(clock(), ZONE);
  const wallet = await fx.store.money.walletState(accountId);
  const spend = await fx.store.money.keySpendState(accountId, keyId, monthOf(clock(), ZONE));
  const usage = (await fx.store.money.listUsage(accountId, day, day)).find(
    (row) => row.model === 'demo/chat',
  );
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
    const charges = (await fx.billing.listLedger(accountId, { limit: 10 })).filter(
      (e) => e.kind === 'charge',
    );
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      amountMicros: -7n * IRT,
      state: 'applied',
      keyId,
      model: 'demo/chat',
      usage: { requests: 1, inputTokens: 100, outputTokens: 20 },
      day: '2026-05-10',
      month: '2026-05',
    });
    // `settle` answers once the charge counts everywhere: nothing is left for recovery.
    expect(await fx.store.money.findEntry(input.requestId)).toEqual(charges[0]);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(0);
    const { spend, usage, wallet } = await targetsOf(accountId, keyId);
    expect(wallet.balance).toBe(993n * IRT);
    expect(spend.spent).toBe(7n * IRT);
    expect(usage).toEqual({
      date: '2026-05-10',
      model: 'demo/chat',
      requests: 1,
      inputTokens: 100,
      outputTokens: 20,
      costMicros: 7n * IRT,
    });
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
    const { spend, usage } = await targetsOf(accountId, keyId);
    expect(spend.spent).toBe(0n);
    expect(usage).toMatchObject({ requests: 1, costMicros: 1n });
    await expect(fx.billing.settle(charge(accountId, null, -1n))).rejects.toThrow(RangeError);
    const fractional = { ...charge(accountId, null), usage: { inputTokens: 1.5, outputTokens: 0 } };
    await expect(fx.billing.settle(fractional)).rejects.toThrow(RangeError);
    await expect(fx.billing.settle({ ...charge(accountId, null), requestId: '' })).rejects.toThrow(
      RangeError,
    );
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT - 1n);
  });

  it('counts a charge in the billing day and month of when it was served, in the zone', async () => {
    const { accountId, keyId } = await fundedAccount();
    // 20:31 UTC on 04-30 is already 05-01 in Tehran (UTC+03:30).
    await fx.billing.settle({ ...charge(accountId, keyId, 2n * IRT), at: new Date('2026-04-30T20:31:00Z') });
    await fx.billing.settle({ ...charge(accountId, keyId, 3n * IRT), at: new Date('2026-04-30T20:29:00Z') });
    expect((await fx.store.money.keySpendState(accountId, keyId, '2026-05')).spent).toBe(2n * IRT);
    expect((await fx.store.money.keySpendState(accountId, keyId, '2026-04')).spent).toBe(3n * IRT);
    const rows = await fx.store.money.listUsage(accountId, '2026-04-30', '2026-05-01');
    expect(rows.map((row) => [row.date, row.costMicros])).toEqual([
      ['2026-04-30', 3n * IRT],
      ['2026-05-01', 2n * IRT],
    ]);
  });

  it('refuses a request id that names another account’s charge', async () => {
    const { accountId, keyId } = await fundedAccount();
    const input = charge(accountId, keyId);
    await fx.billing.settle(input);
    const other = await fundedAccount();
    await expect(fx.billing.settle({ ...input, accountId: other.accountId })).rejects.toThrow(
      /another account/,
    );
    expect(await fx.billing.balanceOf(other.accountId)).toBe(1_000n * IRT);
  });
});
