import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/src/errors/app-error.ts';
import { freshId, testClock, useBillingFixture } from './billing-fixture.ts';

const clock = testClock('2026-05-10T12:00:00Z');
const fx = useBillingFixture({ clock });

const IRT = 1_000_000n;

describe('topUp', () => {
  it('credits the wallet through one applied ledger entry', async () => {
    const accountId = freshId('acct');
    expect(await fx.billing.balanceOf(accountId)).toBe(0n);
    const result = await fx.billing.topUp({
      accountId,
      amountMicros: 12_500_000n,
      reference: 'invoice 42',
      idempotencyKey: 'k1',
    });
    expect(result.created).toBe(true);
    expect(result.balanceMicros).toBe(12_500_000n);
    expect(result.entry).toMatchObject({
      accountId,
      kind: 'topup',
      amountMicros: 12_500_000n,
      keyId: null,
      model: null,
      reference: 'invoice 42',
      state: 'applied',
      createdAt: clock(),
    });
    expect(await fx.billing.balanceOf(accountId)).toBe(12_500_000n);
    // One entry per account and key, under an id that no request id can take.
    expect(result.entry.id).toBe(`topup:${accountId}:k1`);
    expect(await fx.store.money.findEntry(result.entry.id)).toEqual(result.entry);
    expect(await fx.store.money.walletState(accountId)).toMatchObject({ balance: 12_500_000n });
  });

  it('credits once per idempotency key, concurrently too, and keys are per account', async () => {
    const accountId = freshId('acct');
    const input = { accountId, amountMicros: 5n * IRT, idempotencyKey: 'same' };
    const results = await Promise.all(Array.from({ length: 8 }, () => fx.billing.topUp(input)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    const replay = await fx.billing.topUp(input);
    expect(replay).toMatchObject({ created: false, balanceMicros: 5n * IRT });
    expect(replay.entry.state).toBe('applied');
    expect(await fx.billing.listLedger(accountId, { limit: 10 })).toHaveLength(1);
    const other = freshId('acct');
    expect((await fx.billing.topUp({ ...input, accountId: other })).created).toBe(true);
  });

  it('refuses a reused key with another amount (409), and a non-positive amount', async () => {
    const accountId = freshId('acct');
    await fx.billing.topUp({ accountId, amountMicros: 5n * IRT, idempotencyKey: 'k' });
    const reused = fx.billing.topUp({ accountId, amountMicros: 6n * IRT, idempotencyKey: 'k' });
    await expect(reused).rejects.toBeInstanceOf(AppError);
    await expect(reused).rejects.toMatchObject({ status: 409, code: 'idempotency_key_reused' });
    await expect(fx.billing.topUp({ accountId, amountMicros: 0n, idempotencyKey: 'z' })).rejects.toThrow(
      RangeError,
    );
    expect(await fx.billing.balanceOf(accountId)).toBe(5n * IRT);
  });

  it('lists the ledger newest first, bounded by the limit', async () => {
    const accountId = freshId('acct');
    for (let i = 1; i <= 5; i++) {
      clock.advance(1_000);
      await fx.billing.topUp({ accountId, amountMicros: BigInt(i) * IRT, idempotencyKey: `k${i}` });
    }
    const three = await fx.billing.listLedger(accountId, { limit: 3 });
    expect(three.map((e) => e.amountMicros)).toEqual([5n * IRT, 4n * IRT, 3n * IRT]);
    expect((await fx.billing.listLedger(accountId, { limit: 50 })).map((e) => e.amountMicros)).toHaveLength(
      5,
    );
    // The next page starts strictly after the last entry of the previous one.
    const last = three.at(-1) as (typeof three)[number];
    const next = await fx.billing.listLedger(accountId, {
      limit: 3,
      before: { createdAt: last.createdAt, id: last.id },
    });
    expect(next.map((e) => e.amountMicros)).toEqual([2n * IRT, 1n * IRT]);
    expect(await fx.billing.listLedger(accountId, { limit: 10, kind: 'charge' })).toEqual([]);
    expect(await fx.billing.listLedger(accountId, { limit: 10, kind: 'topup' })).toHaveLength(5);
    expect(await fx.billing.balanceOf(accountId)).toBe(15n * IRT);
  });
});
