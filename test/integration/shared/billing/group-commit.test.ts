/**
 * Deferred settlement (group commit): charges queued in memory and written in batches are exact,
 * count once per id whichever path settles it, release every hold, keep a monthly cap within one
 * request under concurrency, and a batch the store cannot record is retried, then settled entry by
 * entry, never dropped; a publish to Redis that fails is retried until the holds are dropped. (A
 * MongoDB batch interrupted between its steps: test/integration/shared/store/mongodb/money-recovery.test.ts.)
 */
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { type AdmitInput, createBilling, type SettleInput } from '../../../../shared/src/billing/billing.ts';
import type { BillingDeps } from '../../../../shared/src/billing/billing-deps.ts';
import { registerBillingScripts } from '../../../../shared/src/billing/billing-scripts.ts';
import { dayOf, monthOf } from '../../../../shared/src/billing/billing-time.ts';
import type { ChargeRecord } from '../../../../shared/src/billing/money-store.ts';
import { SettlementBatcher } from '../../../../shared/src/billing/settlement-batcher.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
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
async function held(
  scope: 'wallet' | 'key',
  accountId: string,
  keyId?: string,
): Promise<{ count: number; total: string }> {
  const keys =
    scope === 'wallet'
      ? fx.deps.keys.walletHolds(accountId)
      : fx.deps.keys.keyHolds(accountId, keyId as string);
  const count = await fx.redis.zcard(keys.expiries);
  return { count, total: (await fx.redis.hget(keys.amounts, 'total')) ?? '0' };
}

async function charges(accountId: string) {
  return (await fx.billing.listLedger(accountId, { limit: 10_000 })).filter(
    (entry) => entry.kind === 'charge',
  );
}

describe('publishing settlements to Redis', () => {
  it('is one script call per 100 settled requests, and none for no request', async () => {
    const redis = createRedis(fx.config.redis);
    try {
      const scripts = registerBillingScripts(redis);
      // Connected first: a command sent before that is queued and then sent again (counted twice).
      await redis.ping();
      const sent = vi.spyOn(redis, 'sendCommand');
      const scriptCalls = () =>
        sent.mock.calls.filter(([command]) => ['evalsha', 'eval'].includes(command.name)).length;
      const accountId = await fundedAccount();
      const calls = Array.from({ length: 250 }, (_, i) => ({
        requestId: `req_publish_${accountId}_${i}`,
        walletHolds: fx.deps.keys.walletHolds(accountId),
        keyHolds: null,
        wallet: null,
        spend: null,
      }));
      await scripts.settle([], 60_000);
      expect(scriptCalls()).toBe(0);
      await scripts.settle(calls, 60_000);
      expect(scriptCalls()).toBe(3);
    } finally {
      await redis.quit();
    }
  });
});

describe('a publish that meets a Redis outage', () => {
  it('is tried again until the holds are dropped and the snapshot counts the charge', async () => {
    // A replica whose own connection to Redis goes down between its admission and its settlement.
    const redis = createRedis(fx.config.redis);
    await redis.ping();
    const { logger, lines } = captureLogger('info');
    const logged = (message: string) => lines().some((line) => line.msg === message);
    const billing = createBilling({
      money: fx.store.money,
      redis,
      config: fx.config,
      logger,
      clock: fx.clock,
      keyPrefix: fx.keyPrefix,
    });
    try {
      const accountId = await fundedAccount();
      const input = charge(accountId, freshId('key'));
      expect((await billing.admit(admission(input, 5_000n))).outcome).toBe('admitted');
      const closed = once(redis, 'end');
      redis.disconnect();
      await closed;
      billing.settleDeferred(input);
      await billing.flush();
      // The money moved in the store; the hold and the snapshot wait for Redis.
      const balance = await fx.billing.balanceOf(accountId);
      expect(balance).toBe(1_000_000n * IRT - input.costMicros);
      expect(await held('wallet', accountId)).toEqual({ count: 1, total: '5000' });
      expect(logged('could not publish settlements to Redis; retrying in the background')).toBe(true);
      await redis.connect();
      await expect
        .poll(() => held('wallet', accountId), { timeout: 12_000, interval: 250 })
        .toEqual({ count: 0, total: '0' });
      expect(await held('key', accountId, input.keyId as string)).toEqual({ count: 0, total: '0' });
      const snapshot = await fx.redis.hget(fx.deps.keys.walletSnapshot(accountId), 'balance');
      expect(snapshot).toBe(String(balance));
      expect(logged('published settlements after a Redis outage')).toBe(true);
    } finally {
      await billing.close();
      redis.disconnect();
    }
  }, 20_000);
});

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
      // Batches of 250, published in script calls of 100: the snapshot is the wallet at the end.
      const snapshot = await fx.redis.hget(fx.deps.keys.walletSnapshot(accountId), 'balance');
      expect(snapshot).toBe(String(await fx.billing.balanceOf(accountId)));
    }
    for (const { accountId, keyId } of keys) {
      expect(await held('key', accountId, keyId)).toEqual({ count: 0, total: '0' });
      for (const at of days) {
        const month = monthOf(at, ZONE);
        const mine = inputs.filter(
          (input) => input.keyId === keyId && monthOf(input.at as Date, ZONE) === month,
        );
        const { spent } = await fx.store.money.keySpendState(accountId, keyId, month);
        expect(spent).toBe(mine.reduce((sum, input) => sum + input.costMicros, 0n));
        // Keys of one account share a spend document: each key's snapshot holds its own spend.
        const snapshot = await fx.redis.hget(fx.deps.keys.spendSnapshot(accountId, keyId, month), 'spent');
        expect(snapshot).toBe(String(spent));
      }
    }
    for (const accountId of accounts) {
      for (const at of days) {
        const day = dayOf(at, ZONE);
        const rows = await fx.store.money.listUsage(accountId, day, day);
        expect(rows.map((row) => row.model)).toEqual(['demo/chat', 'demo/other']);
        for (const row of rows) {
          const mine = inputs.filter(
            (input) =>
              input.accountId === accountId &&
              input.model === row.model &&
              dayOf(input.at as Date, ZONE) === day,
          );
          expect(row).toEqual({
            date: day,
            model: row.model,
            requests: mine.length,
            inputTokens: mine.reduce((sum, input) => sum + input.usage.inputTokens, 0),
            outputTokens: mine.reduce((sum, input) => sum + input.usage.outputTokens, 0),
            costMicros: mine.reduce((sum, input) => sum + input.costMicros, 0n),
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
    expect((await fx.store.money.keySpendState(accountId, keyId, month)).spent).toBe(28n * IRT);
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
    const { spent } = await fx.store.money.keySpendState(accountId, keyId, monthOf(fx.clock(), ZONE));
    expect(spent).toBe(450n * IRT + BigInt(admittedCount) * COST);
    expect(spent).toBeLessThanOrEqual(cap + COST);
    expect(admittedCount).toBe(6);
    expect(await held('key', accountId, keyId)).toEqual({ count: 0, total: '0' });
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

describe('a batch that cannot be recorded', () => {
  /** The fixture's stores with a money store whose `recordCharges` fails its first `failures` calls. */
  function failingStore(failures: number): {
    deps: BillingDeps;
    calls: () => number;
    sizes: () => number[];
  } {
    let calls = 0;
    const sizes: number[] = [];
    const money = fx.store.money;
    const store = {
      ...money,
      recordCharges(charges: readonly ChargeRecord[]) {
        calls += 1;
        sizes.push(charges.length);
        if (calls <= failures) return Promise.reject(new Error('the store is away'));
        return money.recordCharges(charges);
      },
    };
    return { deps: { ...fx.deps, store }, calls: () => calls, sizes: () => sizes };
  }

  async function totals(accountId: string, keyId: string) {
    const { balance } = await fx.store.money.walletState(accountId);
    const { spent } = await fx.store.money.keySpendState(accountId, keyId, monthOf(fx.clock(), ZONE));
    return { balance, spent };
  }

  it('is retried with backoff and written once', async () => {
    const accountId = await fundedAccount(1_000n);
    const keyId = freshId('key');
    const { deps, calls, sizes } = failingStore(2);
    const batcher = new SettlementBatcher(deps, { flushMs: 5 });
    const started = Date.now();
    for (const cost of [1n, 2n, 3n]) batcher.enqueue(charge(accountId, keyId, cost * IRT));
    await batcher.close();
    expect(calls()).toBe(3);
    expect(sizes()).toEqual([3, 3, 3]);
    // Retried after 100 then 200 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(await totals(accountId, keyId)).toEqual({ balance: 994n * IRT, spent: 6n * IRT });
    expect(await charges(accountId)).toHaveLength(3);
  });

  it('is settled entry by entry once out of retries', async () => {
    const accountId = await fundedAccount(1_000n);
    const keyId = freshId('key');
    // The batch and its three retries fail; the entries then go alone, and count.
    const { deps, calls, sizes } = failingStore(4);
    const batcher = new SettlementBatcher(deps, { flushMs: 5 });
    for (const cost of [1n, 2n, 3n]) batcher.enqueue(charge(accountId, keyId, cost * IRT));
    await batcher.close();
    expect(calls()).toBe(7);
    expect(sizes()).toEqual([3, 3, 3, 3, 1, 1, 1]);
    expect(await totals(accountId, keyId)).toEqual({ balance: 994n * IRT, spent: 6n * IRT });
  });

  it('refuses a batch size that is not a positive integer', () => {
    for (const maxBatch of [0, -1, 1.5, Number.NaN])
      expect(() => new SettlementBatcher(fx.deps, { maxBatch })).toThrow(RangeError);
  });

  it('writes a full batch at the next turn, never in the call that queued its last charge', async () => {
    const accountId = await fundedAccount(1_000n);
    const keyId = freshId('key');
    const { deps, calls, sizes } = failingStore(0);
    const batcher = new SettlementBatcher(deps, { flushMs: 60_000, maxBatch: 10 });
    try {
      // The store is synchronous on SQLite: a write started here would run inside the request that
      // queued the tenth charge, before its answer.
      for (let i = 0; i < 10; i++) void batcher.enqueue(charge(accountId, keyId, IRT));
      expect(calls()).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(calls()).toBe(1);
      expect(sizes()).toEqual([10]);
      await batcher.flush();
      expect(await totals(accountId, keyId)).toEqual({ balance: 990n * IRT, spent: 10n * IRT });
    } finally {
      await batcher.close();
    }
  });

  it('writes one store call per batch, a batch taking at most maxBatch of the charges waiting', async () => {
    const accountId = await fundedAccount(1_000n);
    const keyId = freshId('key');
    const { deps, calls, sizes } = failingStore(0);
    const batcher = new SettlementBatcher(deps, { flushMs: 5, maxBatch: 100 });
    // The 100th starts a batch at once; the 150 queued while it is written make two more.
    for (let i = 0; i < 250; i++) batcher.enqueue(charge(accountId, keyId, IRT));
    await batcher.close();
    expect(calls()).toBe(3);
    expect(sizes()).toEqual([100, 100, 50]);
    expect(await totals(accountId, keyId)).toEqual({ balance: 750n * IRT, spent: 250n * IRT });
  });
});
