import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readRedisWork } from '../../../../bench/redis-work.ts';
import { type LocalRedis, startRedisServer } from '../../../../infra/local-services/redis-server.ts';
import { MAX_ADMIT_BATCH } from '../../../../shared/src/billing/admit-batcher.ts';
import {
  type AdmitCall,
  type BillingScripts,
  registerBillingScripts,
} from '../../../../shared/src/billing/billing-scripts.ts';
import { MAX_HOLD_MICROS } from '../../../../shared/src/billing/hold-estimate.ts';
import type { HoldKeys } from '../../../../shared/src/billing/redis-keys.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';

/**
 * The billing scripts on a Redis of their own, so that `INFO commandstats` counts exactly the
 * commands they run: every api replica's admissions and settlements go through one Redis, whose
 * time per request bounds the requests per second of the whole deployment.
 */
let server: LocalRedis;
let redis: Redis;
let scripts: BillingScripts;

beforeAll(async () => {
  server = await startRedisServer();
  redis = createRedis(server.url);
  scripts = registerBillingScripts(redis);
});

afterAll(async () => {
  redis.disconnect();
  await server.process.stop();
});

beforeEach(async () => {
  await redis.flushall();
});

const LEASE_MS = 60_000;
const wallet: HoldKeys = { expiries: 'holds:w', amounts: 'holds:w:amounts' };
const key: HoldKeys = { expiries: 'holds:k', amounts: 'holds:k:amounts' };

function admitCall(
  requestId: string,
  estimate: bigint,
  options: { count?: boolean; ttlMs?: number; limit?: number; minRequired?: bigint } = {},
): AdmitCall {
  return {
    rateWindow: 'rate:k',
    walletSnapshot: 'snap:w',
    spendSnapshot: 'snap:k',
    walletHolds: wallet,
    keyHolds: key,
    args: [
      options.limit ?? 3000,
      60_000,
      requestId,
      estimate,
      options.ttlMs ?? LEASE_MS,
      options.minRequired ?? 0n,
      null,
      true,
      options.count ?? true,
      false,
    ],
  };
}

const settleCall = (requestId: string) => ({
  requestId,
  walletHolds: wallet,
  keyHolds: key,
  wallet: null,
  spend: null,
});

/** What the scripts did since the last reset, read as the bench reads it (bench/redis-work.ts). */
async function commandCounts(): Promise<{ scripts: number; inside: number }> {
  const work = await readRedisWork(server.url);
  if (work === null) throw new Error('INFO commandstats could not be read');
  return { scripts: work.scriptCalls, inside: work.commandsInScripts };
}

/** How often Redis ran `command` since the last reset. */
async function callsOf(command: string): Promise<number> {
  const line = (await redis.info('commandstats'))
    .split('\n')
    .find((l) => l.startsWith(`cmdstat_${command}:`));
  return Number(/calls=(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

async function total(holds: HoldKeys): Promise<string | null> {
  return redis.hget(holds.amounts, 'total');
}

describe('billing scripts: Redis work per request', () => {
  it('admits with a hold in 16 commands once its hold sets have their life', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    // The first hold creates the sets and gives them their life.
    expect((await scripts.admit(admitCall('req-0', 5_000n)))[0]).toBe('admitted');
    await redis.config('RESETSTAT');
    for (let i = 1; i <= 10; i++)
      expect((await scripts.admit(admitCall(`req-${i}`, 5_000n)))[0]).toBe('admitted');
    const counts = await commandCounts();
    expect(counts.scripts).toBe(10);
    // Snapshot, rate window (2), clock, then per hold set: expired sweep, total, and the hold (3 + life check).
    expect(counts.inside).toBe(10 * 16);
    expect(await callsOf('pexpire')).toBe(0);
    expect(await total(wallet)).toBe(String(11 * 5_000));
  });

  it('admits the requests of one call to one wallet and key in 9 commands each after the first', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    expect((await scripts.admit(admitCall('req-0', 5_000n)))[0]).toBe('admitted');
    await redis.config('RESETSTAT');
    // A full call: as many admissions as one call takes.
    const n = MAX_ADMIT_BATCH;
    const replies = await Promise.all(
      Array.from({ length: n }, (_, i) => scripts.admit(admitCall(`req-${i + 1}`, 5_000n))),
    );
    expect(replies.map((reply) => reply.slice(0, 3))).toEqual(
      Array.from({ length: n }, (_, i) => ['admitted', 3000, 3000 - 2 - i]),
    );
    const counts = await commandCounts();
    expect(counts.scripts).toBe(1);
    // The first as above (16, with the call's one clock); each next one: snapshot, rate window (2),
    // and per hold set the hold alone (3): the sets' totals and life are known from the first.
    expect(counts.inside).toBe(16 + (n - 1) * 9);
    expect(await callsOf('time')).toBe(1);
    expect(await total(wallet)).toBe(String((n + 1) * 5_000));
    expect(await total(key)).toBe(String((n + 1) * 5_000));
    expect(await redis.zcard(wallet.expiries)).toBe(n + 1);
  });

  it('counts the holds admitted earlier in the same call against the wallet', async () => {
    // A balance of 300 and holds of 100, each needing 1 left unheld: the fourth and fifth of one
    // call are refused, as they would be one call each.
    await redis.hset('snap:w', 'balance', '300', 'version', '1');
    await redis.config('RESETSTAT');
    const replies = await Promise.all(
      Array.from({ length: 5 }, (_, i) => scripts.admit(admitCall(`r-${i}`, 100n, { minRequired: 1n }))),
    );
    expect((await commandCounts()).scripts).toBe(1);
    expect(replies.map((reply) => reply[0])).toEqual([
      'admitted',
      'admitted',
      'admitted',
      'insufficient_quota',
      'insufficient_quota',
    ]);
    expect(await total(wallet)).toBe('300');
  });

  it('gives hold sets emptied by their last settlement their life again without reading it', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await scripts.admit(admitCall('before', 5_000n));
    await scripts.settle([settleCall('before')], 60_000);
    expect(await redis.exists(wallet.expiries, key.expiries)).toBe(0);
    await redis.config('RESETSTAT');
    expect((await scripts.admit(admitCall('after', 5_000n)))[0]).toBe('admitted');
    // Snapshot, rate window (2), clock, per hold set: sweep, total, the hold (3) and its life (2).
    expect((await commandCounts()).inside).toBe(4 + 2 * (2 + 3 + 2));
    expect(await callsOf('pttl')).toBe(1);
    for (const name of [wallet.expiries, wallet.amounts, key.expiries, key.amounts]) {
      expect(await redis.pttl(name)).toBeGreaterThan(LEASE_MS);
    }
  });

  it("starts a key's rate window with its first request without reading its life", async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await scripts.admit(admitCall('warm', 5_000n));
    await redis.del('rate:k');
    await redis.config('RESETSTAT');
    expect(await scripts.admit(admitCall('first', 5_000n))).toEqual(['admitted', 3000, 2999, 60_000]);
    // The hold sets' life checks only: the rate window's life is set, not read.
    expect(await callsOf('pttl')).toBe(2);
    expect(await redis.pttl('rate:k')).toBeGreaterThan(59_000);
    const second = await scripts.admit(admitCall('second', 5_000n));
    expect(second.slice(0, 3)).toEqual(['admitted', 3000, 2998]);
    expect(second[3]).toBeLessThanOrEqual(60_000);
  });

  it('settles many holds of one wallet and key in four commands per hold set', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    const ids = Array.from({ length: 100 }, (_, i) => `req-${i}`);
    for (const id of ids) await scripts.admit(admitCall(id, 7_000n));
    await redis.config('RESETSTAT');
    await scripts.settle(ids.map(settleCall), 60_000);
    const counts = await commandCounts();
    expect(counts.scripts).toBe(1);
    expect(counts.inside).toBe(2 * 4);
    expect(await total(wallet)).toBe('0');
    expect(await total(key)).toBe('0');
    expect(await redis.exists(wallet.expiries, key.expiries)).toBe(0);
    expect(await redis.hlen(wallet.amounts)).toBe(1);
  });
});

describe('billing scripts: renewing hold leases', () => {
  it('renews the holds of a wallet and a key in four commands per hold set, however many', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    const ids = Array.from({ length: 100 }, (_, i) => `long-${i}`);
    for (const id of ids) await scripts.admit(admitCall(id, 7_000n, { ttlMs: 1_000 }));
    await redis.config('RESETSTAT');
    const gone = await scripts.renewHolds(
      [
        { holds: wallet, ids },
        { holds: key, ids },
      ],
      LEASE_MS,
    );
    expect(gone).toEqual([]);
    const counts = await commandCounts();
    expect(counts.scripts).toBe(1);
    // Per set: the expiries (ZMSCORE), the amounts (HMGET), the new expiries (ZADD), the set's
    // life (PTTL), and the life extended (2 × PEXPIRE: the sets lived 2 s); one clock.
    expect(counts.inside).toBe(1 + 2 * (4 + 2));
    for (const id of [ids[0] as string, ids[99] as string]) {
      expect(Number(await redis.zscore(wallet.expiries, id))).toBeGreaterThan(Date.now() + LEASE_MS - 5_000);
      expect(Number(await redis.zscore(key.expiries, id))).toBeGreaterThan(Date.now() + LEASE_MS - 5_000);
    }
    expect(await redis.pttl(key.amounts)).toBeGreaterThan(LEASE_MS - 5_000);
    expect(await total(wallet)).toBe(String(100 * 7_000));
  });

  it('reports the holds no longer there, in either set, and leaves a longer expiry alone', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    const day = 24 * 3600 * 1000;
    await scripts.admit(admitCall('kept', 5n));
    await scripts.admit(admitCall('video', 5n, { ttlMs: day }));
    await scripts.admit(admitCall('settled', 5n));
    await scripts.settle([settleCall('settled')], 60_000);
    await scripts.admit(admitCall('half', 5n));
    await redis.hdel(key.amounts, 'h:half');
    const videoExpiry = await redis.zscore(wallet.expiries, 'video');
    const ids = ['kept', 'video', 'settled', 'half', 'never'];
    const gone = await scripts.renewHolds(
      [
        { holds: wallet, ids },
        { holds: key, ids },
      ],
      LEASE_MS,
    );
    expect(gone.sort()).toEqual(['half', 'never', 'never', 'settled', 'settled']);
    expect(await redis.zscore(wallet.expiries, 'video')).toBe(videoExpiry);
  });
});

describe('billing scripts: hold arithmetic stays exact', () => {
  it('drops 100 holds of the largest size in one call back to a total of exactly 0', async () => {
    // 100 × 2^48 passes 2^53, where a sum kept in a Lua double would lose units.
    const big = MAX_HOLD_MICROS - 1n;
    await redis.hset('snap:w', 'balance', String(200n * MAX_HOLD_MICROS), 'version', '1');
    const ids = Array.from({ length: 100 }, (_, i) => `big-${i}`);
    for (const id of ids) expect((await scripts.admit(admitCall(id, big)))[0]).toBe('admitted');
    expect(await total(wallet)).toBe(String(100n * big));
    await scripts.admit(admitCall('small', 3n));
    await scripts.settle(ids.map(settleCall), 60_000);
    expect(await total(wallet)).toBe('3');
    expect(await total(key)).toBe('3');
  });

  it('replaces the hold of a request admitted again (its hold phase) by the new amount', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await scripts.admit(admitCall('other', 11n));
    await scripts.admit(admitCall('upload', 500n));
    expect(await total(wallet)).toBe('511');
    expect((await scripts.admit(admitCall('upload', 1_234n, { count: false })))[0]).toBe('admitted');
    expect(await total(wallet)).toBe(String(11 + 1_234));
    expect(await total(key)).toBe(String(11 + 1_234));
    expect(await redis.hget(wallet.amounts, 'h:upload')).toBe('1234');
    await scripts.settle([settleCall('upload')], 60_000);
    expect(await total(wallet)).toBe('11');
  });

  it('leaves the total alone for holds already gone, and drops expired holds at the next admission', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await scripts.admit(admitCall('kept', 40n));
    await scripts.admit(admitCall('short', 2n, { ttlMs: 50 }));
    await scripts.settle([settleCall('never-held'), settleCall('also-missing')], 60_000);
    expect(await total(wallet)).toBe('42');
    await new Promise((resolve) => setTimeout(resolve, 80));
    await scripts.admit(admitCall('next', 100n));
    expect(await total(wallet)).toBe('140');
    expect(await redis.zscore(wallet.expiries, 'short')).toBeNull();
    expect(await redis.hexists(wallet.amounts, 'h:short')).toBe(0);
  });

  it('sweeps a thousand expired holds in one admission (the most one call drops), the total exact', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    const pipeline = redis.pipeline();
    for (let i = 0; i < 1_000; i++) pipeline.hset(wallet.amounts, `h:gone-${i}`, '7');
    for (let i = 0; i < 1_000; i++) pipeline.zadd(wallet.expiries, '1', `gone-${i}`);
    pipeline.hset(wallet.amounts, 'total', '7000');
    await pipeline.exec();
    expect((await scripts.admit(admitCall('fresh', 5n)))[0]).toBe('admitted');
    expect(await total(wallet)).toBe('5');
    expect(await redis.zcard(wallet.expiries)).toBe(1);
    expect(await redis.hlen(wallet.amounts)).toBe(2);
  });

  it('gives the hold sets a life of at least the longest hold, never shortened by a shorter one', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    const day = 24 * 3600 * 1000;
    await scripts.admit(admitCall('video', 10n, { ttlMs: day }));
    await scripts.admit(admitCall('chat', 10n));
    for (const name of [wallet.expiries, wallet.amounts, key.expiries, key.amounts]) {
      expect(await redis.pttl(name)).toBeGreaterThan(day - 5_000);
    }
  });
});

describe('billing scripts: the admissions of one turn of the event loop share one script call', () => {
  it('answers each request of the batch as if it had been alone, in one call', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    // A key at its limit, and a wallet whose snapshot is missing: refused or asked for alone.
    await redis.set('rate:full', '1', 'PX', 60_000);
    const limited: AdmitCall = { ...admitCall('limited', 5n, { limit: 1 }), rateWindow: 'rate:full' };
    const noSnapshot: AdmitCall = { ...admitCall('cold', 5n), walletSnapshot: 'snap:missing' };
    await redis.config('RESETSTAT');
    const replies = await Promise.all([
      scripts.admit(admitCall('a', 10n)),
      scripts.admit(limited),
      scripts.admit(noSnapshot),
      scripts.admit(admitCall('b', 20n)),
    ]);
    expect((await commandCounts()).scripts).toBe(1);
    expect(replies.map((reply) => reply[0])).toEqual([
      'admitted',
      'rate_limited',
      'need_snapshot',
      'admitted',
    ]);
    expect(replies[2]).toEqual(['need_snapshot', 'wallet']);
    // 'rate:k' counted a and b (the cold request stopped before its count); 'rate:full' refused.
    expect(replies[0]).toEqual(['admitted', 3000, 2999, expect.any(Number)]);
    expect(replies[3]).toEqual(['admitted', 3000, 2998, expect.any(Number)]);
    expect(await total(wallet)).toBe('30');
    expect(await total(key)).toBe('30');
  });

  it(`sends at most ${MAX_ADMIT_BATCH} admissions per call, the rest in the next`, async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await redis.config('RESETSTAT');
    const count = MAX_ADMIT_BATCH * 2 + 3;
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) => scripts.admit(admitCall(`many-${i}`, 1n))),
    );
    expect(replies.every((reply) => reply[0] === 'admitted')).toBe(true);
    expect((await commandCounts()).scripts).toBe(3);
    expect(await total(wallet)).toBe(String(count));
  });

  it('fails only the request whose checks fail in Redis, with the Redis error, and admits the others', async () => {
    await redis.hset('snap:w', 'balance', '1000000000000', 'version', '1');
    await redis.hset('rate:broken', 'not', 'a counter');
    const broken: AdmitCall = { ...admitCall('broken', 5n), rateWindow: 'rate:broken' };
    const [first, failed, last] = await Promise.allSettled([
      scripts.admit(admitCall('first', 5n)),
      scripts.admit(broken),
      scripts.admit(admitCall('last', 5n)),
    ]);
    expect(first).toMatchObject({ status: 'fulfilled', value: ['admitted', 3000, 2999, expect.any(Number)] });
    expect(last).toMatchObject({ status: 'fulfilled', value: ['admitted', 3000, 2998, expect.any(Number)] });
    expect(failed.status).toBe('rejected');
    const reason = (failed as PromiseRejectedResult).reason as Error;
    // Redis's own error, as a reply error: the api tells outages (READONLY, LOADING…) from bugs by it.
    expect(reason.name).toBe('ReplyError');
    expect(reason.message).toMatch(/^WRONGTYPE /);
    expect(await total(wallet)).toBe('10');
  });

  it('fails every request of the batch with the error of a script call that failed', async () => {
    const closed = createRedis(server.url);
    const closedScripts = registerBillingScripts(closed);
    await closed.ping();
    closed.disconnect();
    const outcomes = await Promise.allSettled([
      closedScripts.admit(admitCall('x', 1n)),
      closedScripts.admit(admitCall('y', 1n)),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/Connection is closed|writeable/);
    }
  });
});
