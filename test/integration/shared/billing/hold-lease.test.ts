/**
 * Holds are leases (docs/money-core.md, "Holds are leases"): the process that admitted a request
 * renews its hold while the request lives, so a hold outlives any number of lease lengths while
 * its owner lives and is gone within one lease once its owner stops (dies). Short leases here.
 */
import { describe, expect, it, vi } from 'vitest';
import type { AdmitInput, Billing } from '../../../../shared/src/billing/billing.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import { billingFixture, freshId, useBillingFixture } from './billing-fixture.ts';

const LEASE_MS = 900;
const ENV = { MIN_REQUIRED_BALANCE: '1000', HOLD_LEASE_MS: String(LEASE_MS) };
const fx = useBillingFixture({ env: ENV });

const IRT = 1_000_000n;
const COST = 100n * IRT;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An account of 1,099 IRT: one hold of 100 IRT brings it below the 1,000 IRT floor. */
async function account(billing: Billing = fx.billing) {
  const accountId = freshId('acct');
  const keyId = freshId('key');
  await billing.topUp({ accountId, amountMicros: 1_099n * IRT, idempotencyKey: freshId('t') });
  const input = (overrides: Partial<AdmitInput> = {}): AdmitInput => ({
    requestId: freshId('req'),
    accountId,
    keyId,
    rateLimit: 3000,
    monthlyCapMicros: null,
    modelAllowed: true,
    estimateMicros: COST,
    ...overrides,
  });
  /** Whether a hold still counts: a free request is refused below the floor. */
  const held = async () =>
    (await billing.admit(input({ estimateMicros: 0n }))).outcome === 'insufficient_quota';
  return { accountId, keyId, input, held };
}

/** The hold's expiry in the wallet's hold set (ms), or null when it is not there. */
async function expiryOf(accountId: string, requestId: string): Promise<number | null> {
  const score = await fx.redis.zscore(fx.deps.keys.walletHolds(accountId).expiries, requestId);
  return score === null ? null : Number(score);
}

describe('a leased hold', () => {
  it('is renewed by its live process past several lease lengths, and always expires within one lease', async () => {
    const { accountId, input, held } = await account();
    const request = input();
    expect((await fx.billing.admit(request)).outcome).toBe('admitted');
    expect(fx.deps.leases.owns(request.requestId)).toBe(true);
    const started = Date.now();
    while (Date.now() - started < 4 * LEASE_MS) {
      expect(await held()).toBe(true);
      const expiry = (await expiryOf(accountId, request.requestId)) as number;
      // A lease, not a long life: never more than one lease ahead.
      expect(expiry - Date.now()).toBeLessThanOrEqual(LEASE_MS + 50);
      expect(expiry).toBeGreaterThan(Date.now());
      await sleep(150);
    }
    await fx.billing.release({ requestId: request.requestId, accountId, keyId: request.keyId });
    expect(fx.deps.leases.owns(request.requestId)).toBe(false);
    expect(await held()).toBe(false);
  });

  it('of a process that stopped renewing (died) is gone within one lease', async () => {
    const other = fx.replica();
    const { accountId, input, held } = await account();
    const request = input();
    expect((await other.admit(request)).outcome).toBe('admitted');
    await sleep(2 * LEASE_MS);
    expect(await held()).toBe(true); // renewed by the other process meanwhile
    await other.close(); // its renewal loop stops, as if it had been killed
    const stopped = Date.now();
    // Its last renewal set an expiry at most one lease after it stopped (same host's clock as Redis)…
    const expiry = (await expiryOf(accountId, request.requestId)) as number;
    expect(expiry).toBeLessThanOrEqual(stopped + LEASE_MS + 20);
    // …and once that instant has passed, the hold no longer counts (read, not polled: a slow host's
    // polling must not decide the figure).
    await sleep(Math.max(0, expiry - Date.now()) + 10);
    expect(await held()).toBe(false);
  });

  it('of a charge queued for a settlement batch stays renewed until the batch is written', async () => {
    const slow = await billingFixture({ env: ENV, settleBatch: { flushMs: 3 * LEASE_MS } });
    try {
      const { accountId, keyId, input, held } = await account(slow.billing);
      const request = input();
      expect((await slow.billing.admit(request)).outcome).toBe('admitted');
      await slow.billing.settleDeferred({
        requestId: request.requestId,
        accountId,
        keyId,
        model: 'demo/chat',
        costMicros: 10n * IRT,
        usage: { inputTokens: 1, outputTokens: 1 },
      });
      await sleep(2 * LEASE_MS);
      // Still queued (not written): the hold still counts, renewed past two leases.
      expect(await slow.billing.balanceOf(accountId)).toBe(1_099n * IRT);
      expect(await held()).toBe(true);
      expect(slow.deps.leases.owns(request.requestId)).toBe(true);
      await slow.billing.flush();
      // Written: the charge counts instead of the hold (1,089 IRT ≥ the floor), and it is no longer renewed.
      expect(slow.deps.leases.owns(request.requestId)).toBe(false);
      expect(await held()).toBe(false);
      expect(await slow.billing.balanceOf(accountId)).toBe(1_089n * IRT);
    } finally {
      await slow.close();
    }
  });

  it('settled directly is no longer renewed', async () => {
    const { accountId, keyId, input, held } = await account();
    const request = input();
    await fx.billing.admit(request);
    await fx.billing.settle({
      requestId: request.requestId,
      accountId,
      keyId,
      model: 'demo/chat',
      costMicros: 10n * IRT,
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(fx.deps.leases.owns(request.requestId)).toBe(false);
    expect(await held()).toBe(false);
  });

  it('found gone by a renewal (Redis lost it) is forgotten, not re-created', async () => {
    const { accountId, keyId, input } = await account();
    const request = input();
    await fx.billing.admit(request);
    const walletHolds = fx.deps.keys.walletHolds(accountId);
    const keyHolds = fx.deps.keys.keyHolds(accountId, keyId);
    await fx.redis.del(walletHolds.expiries, walletHolds.amounts, keyHolds.expiries, keyHolds.amounts);
    await fx.billing.renewHolds();
    expect(fx.deps.leases.owns(request.requestId)).toBe(false);
    expect(await expiryOf(accountId, request.requestId)).toBeNull();
  });

  it('is not taken for a fixed-life hold (a video owned by its job) nor for a free request', async () => {
    const { accountId, input, held } = await account();
    const video = input({ holdTtlMs: 60_000 });
    const free = input({ estimateMicros: 0n });
    await fx.billing.admit(video);
    await fx.billing.admit(free);
    expect(fx.deps.leases.owns(video.requestId)).toBe(false);
    expect(fx.deps.leases.owns(free.requestId)).toBe(false);
    expect((await expiryOf(accountId, video.requestId)) as number).toBeGreaterThan(Date.now() + 50_000);
    await sleep(LEASE_MS + 200);
    expect(await held()).toBe(true);
    await fx.billing.release({ requestId: video.requestId, accountId, keyId: video.keyId });
  });

  it('handed to a job (a video) gets a fixed life and is no longer renewed here', async () => {
    const { accountId, keyId, input, held } = await account();
    const request = input();
    await fx.billing.admit(request);
    await fx.billing.transferHold({ requestId: request.requestId, accountId, keyId, ttlMs: 60_000 });
    expect(fx.deps.leases.owns(request.requestId)).toBe(false);
    const expiry = (await expiryOf(accountId, request.requestId)) as number;
    expect(expiry).toBeGreaterThan(Date.now() + 55_000);
    const keyScore = await fx.redis.zscore(
      fx.deps.keys.keyHolds(accountId, keyId).expiries,
      request.requestId,
    );
    expect(Number(keyScore)).toBeGreaterThan(Date.now() + 55_000);
    await sleep(LEASE_MS + 200);
    expect(await held()).toBe(true);
    await fx.billing.release({ requestId: request.requestId, accountId, keyId });
    expect(await held()).toBe(false);
  });

  it('never shortens a longer hold sharing its set, nor the set holding it', async () => {
    const { accountId, input } = await account();
    const long = input({ holdTtlMs: 60_000, estimateMicros: IRT });
    const leased = input({ estimateMicros: IRT });
    await fx.billing.admit(long);
    await fx.billing.admit(leased);
    const before = (await expiryOf(accountId, long.requestId)) as number;
    await fx.billing.renewHolds();
    expect(await expiryOf(accountId, long.requestId)).toBe(before);
    expect(await fx.redis.pttl(fx.deps.keys.walletHolds(accountId).expiries)).toBeGreaterThan(50_000);
    for (const request of [long, leased])
      await fx.billing.release({ requestId: request.requestId, accountId, keyId: request.keyId });
  });
});

describe('renewal', () => {
  it('renews every hold of the process in one call per tick, wallets and keys alike', async () => {
    const accounts = await Promise.all([account(), account()]);
    const requests = accounts.flatMap((a) =>
      Array.from({ length: 600 }, () => ({ a, request: a.input({ estimateMicros: 1n }) })),
    );
    await Promise.all(requests.map(({ request }) => fx.billing.admit(request)));
    await sleep(LEASE_MS / 2);
    // The process's own loop renews every third of a lease: a renewal it started before the spy
    // would be joined by the call below and never reach the spy. Let any such one finish first.
    await fx.billing.renewHolds();
    const renew = vi.spyOn(fx.deps.scripts, 'renewHolds');
    try {
      const before = Date.now();
      await fx.billing.renewHolds();
      expect(renew).toHaveBeenCalledTimes(1);
      const sets = renew.mock.calls[0]?.[0] ?? [];
      expect(sets.reduce((n, set) => n + set.ids.length, 0)).toBe(2 * requests.length);
      for (const { a, request } of requests.slice(0, 5).concat(requests.slice(-5))) {
        const expiry = (await expiryOf(a.accountId, request.requestId)) as number;
        expect(expiry).toBeGreaterThanOrEqual(before + LEASE_MS - 50);
        const keyScore = await fx.redis.zscore(
          fx.deps.keys.keyHolds(a.accountId, a.keyId).expiries,
          request.requestId,
        );
        expect(Number(keyScore)).toBeGreaterThanOrEqual(before + LEASE_MS - 50);
      }
    } finally {
      renew.mockRestore();
      for (const { a, request } of requests)
        await fx.billing.release({ requestId: request.requestId, accountId: a.accountId, keyId: a.keyId });
    }
  });

  it('puts back a job hold Redis lost, once', async () => {
    const { accountId, keyId, input, held } = await account();
    const request = input({ holdTtlMs: 60_000 });
    const restore = { requestId: request.requestId, accountId, keyId, amountMicros: COST, ttlMs: 60_000 };
    expect(await fx.billing.restoreHold(restore)).toBe(true);
    expect(await held()).toBe(true);
    expect(await fx.billing.restoreHold(restore)).toBe(false);
    // Counted once: 1,099 − 100 + 100 (top-up) ≥ the floor with the one hold.
    await fx.billing.topUp({ accountId, amountMicros: COST, idempotencyKey: freshId('t') });
    expect(await held()).toBe(false);
    await fx.billing.release({ requestId: request.requestId, accountId, keyId });
  });
});

describe('configuration', () => {
  const minimal = { REDIS_URL: 'redis://127.0.0.1:6379' };

  it('leases last 60 s and workers reconcile every 30 s by default', () => {
    const config = loadConfig(minimal);
    expect(config.billing.holdLeaseMs).toBe(60_000);
    expect(config.worker.reconcileIntervalMs).toBe(30_000);
    const set = loadConfig({ ...minimal, HOLD_LEASE_MS: '1500', RECONCILE_INTERVAL_MS: '250' });
    expect([set.billing.holdLeaseMs, set.worker.reconcileIntervalMs]).toEqual([1_500, 250]);
  });

  it('refuses HOLD_TTL_MS, which no longer says how long a hold lives, and leases too short', () => {
    expect(() => loadConfig({ ...minimal, HOLD_TTL_MS: '900000' })).toThrow(/HOLD_TTL_MS .*HOLD_LEASE_MS/);
    expect(() => loadConfig({ ...minimal, HOLD_LEASE_MS: '10' })).toThrow(/HOLD_LEASE_MS/);
  });
});
