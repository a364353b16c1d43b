import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type LocalRedisCluster,
  startRedisCluster,
} from '../../../../infra/local-services/redis-topologies.ts';
import { redisCheck } from '../../../../shared/src/health/readiness.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { type BillingFixture, billingFixture, freshId } from '../billing/billing-fixture.ts';

/**
 * The gateway's keys on a 3-master Cluster: each admission's keys in one slot (the account's tag),
 * different accounts spread over the masters, batches of many accounts admitted, settled and
 * renewed without a CROSSSLOT. The Cluster of `npm run test:redis-cluster`, or one of its own.
 */
let own: LocalRedisCluster | undefined;
let nodes: string;
let fx: BillingFixture;
const IRT = 1_000_000n;

beforeAll(async () => {
  const given = inject('stack').redisClusterNodes;
  if (given === undefined) own = await startRedisCluster(3);
  nodes = given ?? (own as LocalRedisCluster).nodes;
  fx = await billingFixture({ env: { REDIS_CLUSTER_NODES: nodes } });
}, 60_000);

afterAll(async () => {
  await fx?.close();
  await own?.stop();
});

const masterPorts = () => nodes.split(',').map((node) => Number(node.split(':')[1]));

async function onEachMaster<T>(command: (redis: Redis) => Promise<T>): Promise<T[]> {
  return Promise.all(
    masterPorts().map(async (port) => {
      const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await redis.connect();
      try {
        return await command(redis);
      } finally {
        redis.disconnect();
      }
    }),
  );
}

async function keysOnEachMaster(pattern: string): Promise<string[][]> {
  return onEachMaster(async (redis) => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  });
}

async function account(balanceIrt = 1_000n) {
  const accountId = freshId('acct');
  const keyId = freshId('key');
  await fx.billing.topUp({ accountId, amountMicros: balanceIrt * IRT, idempotencyKey: freshId('t') });
  return { accountId, keyId };
}

const admission = (accountId: string, keyId: string) => ({
  requestId: freshId('req'),
  accountId,
  keyId,
  rateLimit: 1_000,
  estimateMicros: 5_000n,
  monthlyCapMicros: 10_000n * IRT,
  modelAllowed: true,
});

describe('billing keys on a Cluster', () => {
  it('admits, settles and renews a burst over many accounts: every key of a call in its account slot', async () => {
    expect(fx.config.redis.mode).toBe('cluster');
    const accounts = await Promise.all(Array.from({ length: 24 }, () => account()));
    // One turn of the event loop: the batcher would put these in one script call on one node.
    const inputs = accounts.flatMap(({ accountId, keyId }) => [
      admission(accountId, keyId),
      admission(accountId, keyId),
    ]);
    const results = await Promise.all(inputs.map((input) => fx.billing.admit(input)));
    expect(results.map((r) => r.outcome)).toEqual(inputs.map(() => 'admitted'));
    expect(await fx.billing.renewHolds()).toBeUndefined();

    const byMaster = await keysOnEachMaster(`${fx.keyPrefix}*`);
    // Spread: more than one master holds billing keys.
    expect(byMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    // Placed: all keys of one account on one slot, named with its tag.
    const all = byMaster.flat();
    const slots = await onEachMaster(async (redis) => {
      const slotOf = new Map<string, number>();
      for (const key of all) slotOf.set(key, Number(await redis.call('CLUSTER', 'KEYSLOT', key)));
      return slotOf;
    });
    const slotOf = slots[0] as Map<string, number>;
    for (const { accountId } of accounts) {
      const mine = all.filter((key) => key.includes(`{a:${accountId}}`));
      // The rate window, wallet and spend snapshots, and both hold sets with their amounts.
      expect(mine.length).toBeGreaterThanOrEqual(6);
      expect(new Set(mine.map((key) => slotOf.get(key))).size).toBe(1);
    }

    for (const [i, input] of inputs.entries()) {
      void fx.billing.settleDeferred({
        requestId: input.requestId,
        accountId: input.accountId,
        keyId: input.keyId,
        costMicros: BigInt(1_000 + i),
        model: 'demo/chat',
        usage: { inputTokens: 100, outputTokens: 20 },
      });
    }
    await fx.billing.flush();
    for (const [n, { accountId }] of accounts.entries()) {
      const cost = BigInt(1_000 + 2 * n) + BigInt(1_000 + 2 * n + 1);
      expect(await fx.billing.balanceOf(accountId)).toBe(1_000n * IRT - cost);
      const holds = fx.deps.keys.walletHolds(accountId);
      expect(await fx.redis.zcard(holds.expiries)).toBe(0);
    }
  });

  it('/readyz: the Cluster is ok and every master answers', async () => {
    const redis = createRedis({
      mode: 'cluster',
      nodes: masterPorts().map((port) => ({ host: '127.0.0.1', port })),
      username: undefined,
      password: undefined,
      tls: false,
    });
    try {
      await expect(redisCheck(redis, 'cluster').check(new AbortController().signal)).resolves.toBeUndefined();
    } finally {
      await redis.quit();
    }
  });
});
