/**
 * Deferred settlement (group commit): charges queued in memory and written in batches are exact,
 * count once per id whichever path settles it, release every hold, and keep a monthly cap within
 * one request under concurrency.
 */
import { describe, expect, it } from 'vitest';
import type { AdmitInput, SettleInput } from '../../../../shared/src/billing/billing.ts';
import { dayOf, monthOf } from '../../../../shared/src/billing/billing-time.ts';
import { usageDailyId } from '../../../../shared/src/billing/usage-daily.repository.ts';
import { billingFixture, freshId, useBillingFixture } from './billing-fixture.ts';

const fx = useBillingFixture({ env: { MIN_REQUIRED_BALANCE: '0' } });

const IRT = 1_000_000n;
const ZONE = 'Asia/Tehran';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function fundedAccount(balanceIrt = 1_000_000n) {
  const accountId = freshId('acct');
  await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  return accountId;
}

function charge(accountId: string, keyId: string | null, costMicros = 7n * IRT): SettleInput {
  return {
    requestId: freshId('req'),
    accountId,
    keyId,
    model: 'demo/chat',
    costMicros,
    usage: { inputTokens: 100, outputTokens: 20 },
  };
}

function admission(input: SettleInput, estimateMicros: bigint, cap: bigint | null = null): AdmitInput {
  const { requestId, accountId, keyId } = input;
  return {
    requestId,
    accountId,
    keyId: keyId ?? '',
    rateLimit: 100_000,
    monthlyCapMicros: cap,
    modelAllowed: true,
    estimateMicros,
  };
}

/** What is held in Redis against a wallet or a key (0 once every hold is dropped). */
async function held(scope: 'wallet' | 'key', id: string): Promise<{ count: number; total: string }> {
  const keys = scope === 'wallet' ? fx.deps.keys.walletHolds(id) : fx.deps.keys.keyHolds(id);
  const count = await fx.redis.zcard(keys.expiries);
  return { count, total: (await fx.redis.hget(keys.amounts, 'total')) ?? '0' };
}

async function charges(accountId: string) {
  return (await fx.billing.listLedger(accountId, 10_000)).filter((entry) => entry.kind === 'charge');
}

describe('settleDeferred', () => {
  it('writes 1000 charges over accounts, keys, models and days exactly, dropping every hold', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => fundedAccount()));
    const keys = accounts.flatMap((accountId) => [1, 2].map(() => ({ accountId, keyId: freshId('key') })));
    const days = ['2026-04-30T12:00:00Z', '2026-05-10T12:00:00Z'].map((at) => new Date(at));
    const inputs = Array.from({ length: 1000 }, (_, i): SettleInput => {
      const { accountId, keyId } = keys[i % keys.length] as { accountId: string; keyId: string };
      const usage = { inputTokens: 10 + (i % 7), outputTokens: i % 5, requests: 1 };
      // Every key sees both days (in two months) and both models.
      const model = Math.floor(i / 6) % 2 === 0 ? 'demo/chat' : 'demo/other';
      const at = days[Math.floor(i / 12) % 2] as Date;
      return { ...charge(accountId, keyId, 1_000n + BigInt(i)), model, usage, at };
    });
    const admitted = await Promise.all(inputs.map((input) => fx.billing.admit(admission(input, 5_000n))));
    expect(admitted.every((result) => result.outcome === 'admitted')).toBe(true);
    for (const input of inputs) fx.billing.settleDeferred(input);
    await fx.billing.flush();

    expect(await fx.billing.checkLedger()).toEqual([]);
    for (const accountId of accounts) {
      const mine = inputs.filter((input) => input.accountId === accountId);
      const cost = mine.reduce((sum, input) => sum + input.costMicros, 0n);
      expect(await fx.billing.balanceOf(accountId)).toBe(1_000_000n * IRT - cost);
      expect(await charges(accountId)).toHaveLength(mine.length);
      expect(await held('wallet', accountId)).toEqual({ count: 0, total: '0' });
    }
    for (const { accountId, keyId } of keys) {
      expect(await held('key', keyId)).toEqual({ count: 0, total: '0' });
      for (const at of days) {
        const month = monthOf(at, ZONE);
        const mine = inputs.filter(
          (input) => input.keyId === keyId && monthOf(input.at as Date, ZONE) === month,
        );
        const { spent } = await fx.deps.store.keySpend.findState(accountId, keyId, month);
        expect(spent).toBe(mine.reduce((sum, input) => sum + input.costMicros, 0n));
        // Keys of one account share a spend document: each key's snapshot holds its own spend.
        const snapshot = await fx.redis.hget(fx.deps.keys.spendSnapshot(keyId, month), 'spent');
        expect(snapshot).toBe(String(spent));
      }
    }
    const rows = fx.db.collection('usage_daily', { useBigInt64: true });
    for (const accountId of accounts) {
      for (const at of days) {
        for (const model of ['demo/chat', 'demo/other']) {
          const day = dayOf(at, ZONE);
          const mine = inputs.filter(
            (input) =>
              input.accountId === accountId && input.model === model && dayOf(input.at as Date, ZONE) === day,
          );
          const row = await rows.findOne({ _id: usageDailyId(accountId, day, model) as never });
          expect(row).toMatchObject({
            requests: mine.length,
            input_tokens: mine.reduce((sum, input) => sum + input.usage.inputTokens, 0),
            output_tokens: mine.reduce((sum, input) => sum + input.usage.outputTokens, 0),
            cost: mine.reduce((sum, input) => sum + input.costMicros, 0n),
            pending: {},
          });
        }
      }
    }
  });

  it('charges a repeated id once: within a batch, across batches, and beside settle()', async () => {
    const accountId = await fundedAccount(1_000n);
    const keyId = freshId('key');
    const twiceInBatch = charge(accountId, keyId);
    fx.billing.settleDeferred(twiceInBatch);
    fx.billing.settleDeferred({ ...twiceInBatch, costMicros: 99n * IRT });
    const acrossBatches = charge(accountId, keyId);
    fx.billing.settleDeferred(acrossBatches);
    await fx.billing.flush();
    fx.billing.settleDeferred(acrossBatches);
    const settledBefore = charge(accountId, keyId);
    expect(await fx.billing.settle(settledBefore)).toMatchObject({ created: true });
    fx.billing.settleDeferred(settledBefore);
    // Deferred first, then settled directly before the batch is written: the direct one records it.
    const racedByDirect = charge(accountId, keyId);
    fx.billing.settleDeferred(racedByDirect);
    expect(await fx.billing.settle(racedByDirect)).toMatchObject({ created: true });
    await fx.billing.flush();
    // And settled directly after the batch wrote it.
    expect(await fx.billing.settle(acrossBatches)).toMatchObject({ created: false, costMicros: 7n * IRT });

    expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT - 4n * 7n * IRT);
    expect(await charges(accountId)).toHaveLength(4);
    const month = monthOf(fx.clock(), ZONE);
    expect((await fx.deps.store.keySpend.findState(accountId, keyId, month)).spent).toBe(28n * IRT);
  });

  it('is written by close, after which it refuses charges; bad input throws at once', async () => {
    const other = await billingFixture({ settleBatch: { flushMs: 60_000 } });
    try {
      const accountId = freshId('acct');
      await other.billing.topUp({ accountId, amountMicros: 100n * IRT, idempotencyKey: 'first' });
      for (let i = 0; i < 10; i++) other.billing.settleDeferred(charge(accountId, null, IRT));
      await sleep(50);
      expect(await other.billing.balanceOf(accountId)).toBe(100n * IRT);
      await other.billing.close();
      expect(await other.billing.balanceOf(accountId)).toBe(90n * IRT);
      expect(() => other.billing.settleDeferred(charge(accountId, null))).toThrow(/closed/);
      expect(await other.billing.checkLedger()).toEqual([]);
    } finally {
      await other.close();
    }
    expect(() => fx.billing.settleDeferred(charge('acct', null, -1n))).toThrow(RangeError);
  });

  it('writes a full batch without waiting for the timer', async () => {
    const other = await billingFixture({ settleBatch: { flushMs: 60_000, maxBatch: 20 } });
    try {
      const accountId = freshId('acct');
      for (let i = 0; i < 20; i++) other.billing.settleDeferred(charge(accountId, null, IRT));
      await sleep(100);
      expect(await other.billing.balanceOf(accountId)).toBe(-20n * IRT);
    } finally {
      await other.close();
    }
  });
});

describe('holds keep concurrent requests within one request of a cap with deferred settlement', () => {
  const COST = 100n * IRT;

  it('admissions racing batch writes overshoot the cap by at most one request', async () => {
    const accountId = await fundedAccount(100_000n);
    const keyId = freshId('key');
    const cap = 1_000n * IRT;
    await fx.billing.settle({
      ...charge(accountId, keyId, 450n * IRT),
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    let admittedCount = 0;
    // Waves of concurrent admissions, each admitted request settled deferred at once, while the
    // batcher writes every 20 ms: admission sees each charge as a hold or as spend, never neither.
    for (let wave = 0; wave < 10; wave++) {
      const inputs = Array.from({ length: 5 }, () => charge(accountId, keyId, COST));
      const results = await Promise.all(inputs.map((input) => fx.billing.admit(admission(input, COST, cap))));
      inputs.forEach((input, i) => {
        if (results[i]?.outcome !== 'admitted') return;
        admittedCount += 1;
        fx.billing.settleDeferred(input);
      });
      await sleep(wave * 3);
    }
    const refused = await fx.billing.admit(admission(charge(accountId, keyId), 0n, cap));
    expect(refused.outcome).toBe('spend_limit_reached');
    await fx.billing.flush();
    const { spent } = await fx.deps.store.keySpend.findState(accountId, keyId, monthOf(fx.clock(), ZONE));
    expect(spent).toBe(450n * IRT + BigInt(admittedCount) * COST);
    expect(spent).toBeLessThanOrEqual(cap + COST);
    expect(admittedCount).toBe(6);
    expect(await held('key', keyId)).toEqual({ count: 0, total: '0' });
    expect((await fx.billing.admit(admission(charge(accountId, keyId), 0n, cap))).outcome).toBe(
      'spend_limit_reached',
    );
  });
});

describe('settleDeferred backpressure', () => {
  it('answers at once below the high-water mark and waits for the write above it', async () => {
    const { HIGH_WATER } = await import('../../../../shared/src/billing/settlement-batcher.ts');
    expect(HIGH_WATER).toBeGreaterThan(0);
    const fast = fx.billing.settleDeferred({
      requestId: `bp-${Date.now()}`,
      accountId: 'acct_backpressure',
      keyId: null,
      model: 'demo/chat',
      costMicros: 1n,
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    // Below the mark the promise is already settled: a microtask resolves it.
    let resolved = false;
    void fast.then(() => {
      resolved = true;
    });
    await Promise.resolve();
    expect(resolved).toBe(true);
    await fx.billing.flush();
  });
});
