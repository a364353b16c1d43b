import { describe, expect, it } from 'vitest';
import type { AdmitInput } from '../../../../shared/src/billing/billing.ts';
import { billingFixture, freshId, useBillingFixture } from './billing-fixture.ts';

const fx = useBillingFixture({ env: { MIN_REQUIRED_BALANCE: '1000' } });

const IRT = 1_000_000n;

/** An account with a wallet of `balance` Toman and one key. */
async function fundedKey(balanceIrt: bigint) {
  const accountId = freshId('acct');
  const keyId = freshId('key');
  if (balanceIrt > 0n) {
    await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  }
  const input = (overrides: Partial<AdmitInput> = {}): AdmitInput => ({
    requestId: freshId('req'),
    accountId,
    keyId,
    rateLimit: 60,
    monthlyCapMicros: null,
    modelAllowed: true,
    estimateMicros: 10n * IRT,
    ...overrides,
  });
  return { accountId, keyId, input };
}

describe('admit: rate limit (check 4)', () => {
  it('admits exactly `limit` of 100 concurrent requests, from two replicas', async () => {
    const { input } = await fundedKey(1_000_000n);
    const replica = fx.replica();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? fx.billing : replica).admit(input({ estimateMicros: 0n })),
      ),
    );
    const admitted = results.filter((r) => r.outcome === 'admitted');
    const limited = results.filter((r) => r.outcome === 'rate_limited');
    expect(admitted).toHaveLength(60);
    expect(limited).toHaveLength(40);
    for (const r of limited) {
      expect(r.remaining).toBe(0);
      expect(r.resetMs).toBeGreaterThan(0);
      expect(r.resetMs).toBeLessThanOrEqual(60_000);
    }
    expect(new Set(admitted.map((r) => r.remaining))).toEqual(
      new Set(Array.from({ length: 60 }, (_, i) => i)),
    );
  });

  it('counts remaining down, one window per key', async () => {
    const { input, keyId, accountId } = await fundedKey(1_000_000n);
    const seen = [];
    for (let i = 0; i < 3; i++)
      seen.push(await fx.billing.admit(input({ rateLimit: 3, estimateMicros: 0n })));
    expect(seen.map((r) => [r.outcome, r.limit, r.remaining])).toEqual([
      ['admitted', 3, 2],
      ['admitted', 3, 1],
      ['admitted', 3, 0],
    ]);
    expect(await fx.billing.rateWindow(accountId, keyId, 3)).toMatchObject({ limit: 3, remaining: 0 });
    const other = await fundedKey(1_000_000n);
    expect((await fx.billing.admit(other.input({ rateLimit: 3 }))).remaining).toBe(2);
  });

  it('starts the window with its first request and opens a new one after it', async () => {
    const short = await billingFixture({ rateWindowMs: 400 });
    try {
      const accountId = freshId('acct');
      await short.billing.topUp({ accountId, amountMicros: 100n * IRT, idempotencyKey: 'seed' });
      const input = {
        accountId,
        keyId: freshId('key'),
        rateLimit: 2,
        monthlyCapMicros: null,
        modelAllowed: true,
      };
      const admit = () => short.billing.admit({ ...input, requestId: freshId('req'), estimateMicros: 0n });
      expect(await short.billing.rateWindow(input.accountId, input.keyId, 2)).toMatchObject({ remaining: 2 });
      const first = await admit();
      expect(first).toMatchObject({ outcome: 'admitted', remaining: 1 });
      expect(first.resetMs).toBeGreaterThan(300);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await admit()).toMatchObject({ outcome: 'admitted', remaining: 0 });
      const limited = await admit();
      expect(limited.outcome).toBe('rate_limited');
      // The window runs from the first request, not the last one.
      expect(limited.resetMs).toBeLessThanOrEqual(200);
      await new Promise((resolve) => setTimeout(resolve, limited.resetMs + 20));
      expect(await admit()).toMatchObject({ outcome: 'admitted', remaining: 1 });
    } finally {
      await short.close();
    }
  });
});

describe('admit: wallet, cap and model (checks 5–7)', () => {
  it('refuses below min_required even for a free endpoint, after the rate limit', async () => {
    const { input } = await fundedKey(999n);
    expect(fx.billing.minRequiredMicros).toBe(1000n * IRT);
    expect(await fx.billing.admit(input({ estimateMicros: 0n }))).toMatchObject({
      outcome: 'insufficient_quota',
      limit: 60,
      remaining: 59,
    });
    const noWallet = await fundedKey(0n);
    expect((await fx.billing.admit(noWallet.input({ estimateMicros: 0n }))).outcome).toBe(
      'insufficient_quota',
    );
    const limited = await fx.billing.admit(input({ rateLimit: 1, estimateMicros: 0n }));
    expect(limited.outcome).toBe('rate_limited');
  });

  it('sees a top-up at once (the snapshot is refreshed, not waited out)', async () => {
    const { input, accountId } = await fundedKey(500n);
    expect((await fx.billing.admit(input())).outcome).toBe('insufficient_quota');
    await fx.billing.topUp({ accountId, amountMicros: 600n * IRT, idempotencyKey: freshId('t') });
    expect((await fx.billing.admit(input())).outcome).toBe('admitted');
  });

  it('checks the cap after the wallet, and the model last, without holding', async () => {
    const { input, accountId } = await fundedKey(5_000n);
    const capped = input({ monthlyCapMicros: 0n, modelAllowed: false });
    expect((await fx.billing.admit(capped)).outcome).toBe('spend_limit_reached');
    const refused = input({ modelAllowed: false, estimateMicros: 3_000n * IRT });
    expect((await fx.billing.admit(refused)).outcome).toBe('model_not_allowed');
    // Nothing was held by the refusals: a hold of all the wallet above the floor (and 1 µIRT) passes,
    // and then leaves the next request below the floor.
    const whole = input({ estimateMicros: 4_000n * IRT + 1n });
    expect((await fx.billing.admit(whole)).outcome).toBe('admitted');
    expect((await fx.billing.admit(input({ estimateMicros: 1n }))).outcome).toBe('insufficient_quota');
    await fx.billing.release({ requestId: whole.requestId, accountId, keyId: whole.keyId });
  });

  it('refuses invalid input before touching Redis', async () => {
    const { input } = await fundedKey(0n);
    await expect(fx.billing.admit(input({ rateLimit: 0 }))).rejects.toThrow(RangeError);
    await expect(fx.billing.admit(input({ estimateMicros: -1n }))).rejects.toThrow(RangeError);
  });
});

describe('admit: a bounded hold must fit whole (the request states its own bound)', () => {
  it('admits a bound the wallet above its floor can pay, to the µIRT, and refuses one more', async () => {
    // 5,000 IRT against a floor of 1,000: 4,000 IRT above it.
    const { input, accountId } = await fundedKey(5_000n);
    const over = input({ estimateMicros: 4_000n * IRT + 1n, bounded: true });
    expect((await fx.billing.admit(over)).outcome).toBe('insufficient_quota');
    const exact = input({ estimateMicros: 4_000n * IRT, bounded: true });
    expect((await fx.billing.admit(exact)).outcome).toBe('admitted');
    // Nothing left above the floor: a bounded request of 1 µIRT is refused, an estimate (not
    // bounded) of any size still passes check 5 while nothing more is held than the wallet has.
    expect((await fx.billing.admit(input({ estimateMicros: 1n, bounded: true }))).outcome).toBe(
      'insufficient_quota',
    );
    await fx.billing.release({ requestId: exact.requestId, accountId, keyId: exact.keyId });
    const estimate = input({ estimateMicros: 9_000n * IRT });
    expect((await fx.billing.admit(estimate)).outcome).toBe('admitted');
    await fx.billing.release({ requestId: estimate.requestId, accountId, keyId: estimate.keyId });
  });

  it('admits concurrent bounded requests only while their bounds fit: never past the floor', async () => {
    const { input } = await fundedKey(2_000n);
    const replica = fx.replica();
    const calls = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? fx.billing : replica).admit(input({ estimateMicros: 30n * IRT, bounded: true })),
    );
    const results = await Promise.all(calls);
    // 1,000 IRT above the floor pays 33 bounds of 30 IRT.
    expect(results.filter((r) => r.outcome === 'admitted')).toHaveLength(33);
    expect(results.filter((r) => r.outcome === 'insufficient_quota')).toHaveLength(7);
  });

  it("refuses a bound the key's cap cannot pay (spend_limit_reached), and admits one that fits it exactly", async () => {
    const { input } = await fundedKey(1_000_000n);
    const cap = 100n * IRT;
    const over = input({ monthlyCapMicros: cap, estimateMicros: cap + 1n, bounded: true });
    expect((await fx.billing.admit(over)).outcome).toBe('spend_limit_reached');
    const exact = input({ monthlyCapMicros: cap, estimateMicros: cap, bounded: true });
    expect((await fx.billing.admit(exact)).outcome).toBe('admitted');
    // The cap is now fully held: any further request is refused, bounded or not.
    expect((await fx.billing.admit(input({ monthlyCapMicros: cap, estimateMicros: 0n }))).outcome).toBe(
      'spend_limit_reached',
    );
  });
});

describe('admit: a second phase that does not count the request', () => {
  it('holds without counting, and still applies checks 5 to 7', async () => {
    const { input } = await fundedKey(5_000n);
    const first = await fx.billing.admit(input({ estimateMicros: 0n, rateLimit: 1 }));
    expect(first).toMatchObject({ outcome: 'admitted', remaining: 0 });
    const hold = await fx.billing.admit(
      input({ rateLimit: 1, countRequest: false, estimateMicros: 100n * IRT }),
    );
    expect(hold).toMatchObject({ outcome: 'admitted', remaining: 0 });
    const refused = await fx.billing.admit(input({ rateLimit: 1, countRequest: false, modelAllowed: false }));
    expect(refused.outcome).toBe('model_not_allowed');
    const poor = await fx.billing.admit(
      input({ rateLimit: 1, countRequest: false, estimateMicros: 4_901n * IRT }),
    );
    expect(poor.outcome).toBe('admitted');
    const floor = await fx.billing.admit(input({ rateLimit: 1, countRequest: false }));
    expect(floor.outcome).toBe('insufficient_quota');
    expect((await fx.billing.admit(input({ rateLimit: 1 }))).outcome).toBe('rate_limited');
  });
});
