import { describe, expect, it } from 'vitest';
import type { AdmitInput } from '../../../../shared/src/billing/billing.ts';
import { monthOf } from '../../../../shared/src/billing/billing-time.ts';
import { freshId, useBillingFixture } from './billing-fixture.ts';

const fx = useBillingFixture({ env: { MIN_REQUIRED_BALANCE: '1000' } });

const IRT = 1_000_000n;
const COST = 100n * IRT;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function account(balanceIrt: bigint, cap: bigint | null = null) {
  const accountId = freshId('acct');
  const keyId = freshId('key');
  await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  const input = (overrides: Partial<AdmitInput> = {}): AdmitInput => ({
    requestId: freshId('req'),
    accountId,
    keyId,
    rateLimit: 3000,
    monthlyCapMicros: cap,
    modelAllowed: true,
    estimateMicros: COST,
    ...overrides,
  });
  return { accountId, keyId, input };
}

/** 50 concurrent admissions, each admitted one then settled at its estimate; returns how many got in. */
async function admitAndSettle50(make: () => AdmitInput): Promise<number> {
  const inputs = Array.from({ length: 50 }, make);
  const results = await Promise.all(inputs.map((input) => fx.billing.admit(input)));
  const admitted = inputs.filter((_, i) => results[i]?.outcome === 'admitted');
  await Promise.all(
    admitted.map((input) =>
      fx.billing.settle({
        requestId: input.requestId,
        accountId: input.accountId,
        keyId: input.keyId,
        model: 'demo/chat',
        costMicros: input.estimateMicros,
        usage: { inputTokens: 10, outputTokens: 5 },
      }),
    ),
  );
  return admitted.length;
}

describe('holds keep concurrent requests within one request of a limit', () => {
  it('monthly cap: 50 concurrent admissions with room for about 5', async () => {
    const cap = 1_000n * IRT;
    const { accountId, keyId, input } = await account(100_000n, cap);
    // 450 IRT spent already: room for 5.5 requests of 100 IRT.
    await fx.billing.settle({
      requestId: freshId('req'),
      accountId,
      keyId,
      model: 'demo/chat',
      costMicros: 450n * IRT,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const admitted = await admitAndSettle50(() => input());
    expect(admitted).toBe(6);
    const month = monthOf(fx.clock(), fx.config.billing.timeZone);
    const { spent } = await fx.store.money.keySpendState(accountId, keyId, month);
    expect(spent).toBe(450n * IRT + 6n * COST);
    expect(spent).toBeLessThanOrEqual(cap + COST);
    expect((await fx.billing.admit(input())).outcome).toBe('spend_limit_reached');
    expect(await fx.billing.balanceOf(accountId)).toBe(100_000n * IRT - spent);
  });

  it('wallet: 50 concurrent admissions against min_required', async () => {
    const { accountId, input } = await account(1_550n);
    const admitted = await admitAndSettle50(() => input());
    expect(admitted).toBe(6);
    const balance = await fx.billing.balanceOf(accountId);
    expect(balance).toBe(1_550n * IRT - 6n * COST);
    expect(balance).toBeGreaterThanOrEqual(fx.billing.minRequiredMicros - COST);
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('insufficient_quota');
    expect(await fx.billing.listLedger(accountId, { limit: 100 })).toHaveLength(1 + 6);
  });
});

describe('release and expiry', () => {
  it('release drops the hold, charges nothing and is idempotent', async () => {
    const { accountId, keyId, input } = await account(1_099n);
    const held = input();
    expect((await fx.billing.admit(held)).outcome).toBe('admitted');
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('insufficient_quota');
    await fx.billing.release({ requestId: held.requestId, accountId, keyId });
    await fx.billing.release({ requestId: held.requestId, accountId, keyId });
    await fx.billing.release({ requestId: 'never-admitted', accountId, keyId: null });
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('admitted');
    expect(await fx.billing.balanceOf(accountId)).toBe(1_099n * IRT);
    expect((await fx.billing.listLedger(accountId, { limit: 10 })).map((e) => e.kind)).toEqual(['topup']);
  });

  it('admitting one request id twice holds it once', async () => {
    const { input } = await account(1_150n);
    const once = input();
    expect((await fx.billing.admit(once)).outcome).toBe('admitted');
    expect((await fx.billing.admit(once)).outcome).toBe('admitted');
    // 1150 − 100 held = 1050 ≥ 1000: a hold counted twice would leave 950.
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('admitted');
  });

  it('an expired hold stops counting; a long hold is not cut short by a short one', async () => {
    const { input } = await account(1_100n);
    expect((await fx.billing.admit(input({ holdTtlMs: 2_000, estimateMicros: 60n * IRT }))).outcome).toBe(
      'admitted',
    );
    expect((await fx.billing.admit(input({ holdTtlMs: 250, estimateMicros: 60n * IRT }))).outcome).toBe(
      'admitted',
    );
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('insufficient_quota');
    await sleep(350);
    // The short hold expired (1100 − 60 ≥ 1000); the long one still counts.
    expect((await fx.billing.admit(input({ estimateMicros: 0n }))).outcome).toBe('admitted');
    expect((await fx.billing.admit(input({ estimateMicros: 0n, monthlyCapMicros: 60n * IRT }))).outcome).toBe(
      'spend_limit_reached',
    );
  });
});
