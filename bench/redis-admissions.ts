/**
 * Admissions per second per Redis shard (`node bench/redis-admissions.ts [--seconds 8]
 * [--clients 64] [--accounts 200]`): the gateway's own admission (createBilling: the ADMIT_LUA
 * script, batched per turn of the event loop, per account on a Cluster) followed by the release of
 * its hold, driven as fast as this process can against (1) one redis-server and (2) a 3-master
 * Cluster, both started here on free ports. For each shard it reads the CPU Redis spent
 * (`INFO cpu`, user + sys) and its script time (`INFO commandstats`), so that the capacity of a
 * shard is its admissions per CPU-second: what one saturated Redis core sustains. The load is made
 * on the same machine, so the rate measured end to end is the client's bound, not Redis's.
 * Results: docs/redis.md, "Capacity".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startRedisCluster } from '../infra/local-services/redis-topologies.ts';
import { createBilling } from '../shared/src/billing/billing.ts';
import { loadConfig } from '../shared/src/config/config.ts';
import { createLogger } from '../shared/src/logging/logger.ts';
import { createRedis } from '../shared/src/redis/redis.ts';
import { openStore } from '../shared/src/store/open-store.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    clients: { type: 'string', default: '64' },
    accounts: { type: 'string', default: '200' },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const ACCOUNTS = Number(values.accounts);
const IRT = 1_000_000n;

interface ShardReading {
  readonly cpuSeconds: number;
  readonly scriptMicros: number;
  readonly scriptCalls: number;
}

async function readShard(port: number): Promise<ShardReading> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
  await redis.connect();
  try {
    const cpu = await redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
    const stats = await redis.info('commandstats');
    let scriptMicros = 0;
    let scriptCalls = 0;
    for (const match of stats.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+),usec=(\d+)/gm)) {
      scriptCalls += Number(match[2]);
      scriptMicros += Number(match[3]);
    }
    return { cpuSeconds: field('used_cpu_user') + field('used_cpu_sys'), scriptMicros, scriptCalls };
  } finally {
    redis.disconnect();
  }
}

async function run(label: string, env: Record<string, string>, ports: readonly number[]) {
  const directory = await mkdtemp(join(tmpdir(), 'redis-admissions-'));
  const config = loadConfig({
    ...env,
    SQLITE_PATH: join(directory, 'gateway.db'),
    QUEUE_PREFIX: 'bench',
    MIN_REQUIRED_BALANCE: '0',
  });
  const logger = createLogger({ name: 'redis-admissions', level: 'warn' });
  const store = await openStore(config.store, { logger });
  const redis = createRedis(config.redis, { connectionName: 'redis-admissions' });
  const billing = createBilling({ money: store.money, redis, config, logger });
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
    accountId: `acct_${i}`,
    keyId: `key_${i}`,
  }));
  for (const { accountId } of accounts) {
    await billing.topUp({ accountId, amountMicros: 1_000_000n * IRT, idempotencyKey: `seed-${accountId}` });
  }
  let sequence = 0;
  const once = async () => {
    const { accountId, keyId } = accounts[sequence % accounts.length] as (typeof accounts)[number];
    const requestId = `req_${label}_${sequence++}`;
    const result = await billing.admit({
      requestId,
      accountId,
      keyId,
      rateLimit: 1_000_000_000,
      estimateMicros: 2_000n,
      monthlyCapMicros: null,
      modelAllowed: true,
    });
    if (result.outcome !== 'admitted') throw new Error(`not admitted: ${result.outcome}`);
    await billing.release({ requestId, accountId, keyId });
  };
  // Warm-up: snapshots loaded, scripts cached on every shard.
  await Promise.all(accounts.map(() => once()));
  const before = await Promise.all(ports.map(readShard));
  let admissions = 0;
  const end = Date.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < end) {
        await once();
        admissions += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const after = await Promise.all(ports.map(readShard));
  await billing.close();
  await redis.quit();
  await store.close();
  await rm(directory, { recursive: true, force: true });
  const shards = ports.map((port, i) => {
    const a = after[i] as ShardReading;
    const b = before[i] as ShardReading;
    return {
      port,
      cpuSeconds: a.cpuSeconds - b.cpuSeconds,
      scriptMs: (a.scriptMicros - b.scriptMicros) / 1000,
      scriptCalls: a.scriptCalls - b.scriptCalls,
    };
  });
  const cpu = shards.reduce((sum, s) => sum + s.cpuSeconds, 0);
  return {
    label,
    admissionsPerSecond: Math.round(admissions / elapsed),
    admissions,
    shards: shards.map((s) => ({ ...s, share: s.cpuSeconds / cpu })),
    /** Admissions (with their release) per CPU-second of Redis: one shard's ceiling. */
    perShardCpuSecond: Math.round(admissions / cpu),
  };
}

const single = await startRedisServer();
const cluster = await startRedisCluster(3);
try {
  const results = [
    await run('one node', { REDIS_URL: single.url }, [Number(new URL(single.url).port)]),
    await run(
      '3-master Cluster',
      { REDIS_CLUSTER_NODES: cluster.nodes },
      cluster.masters.map((m) => m.port),
    ),
  ];
  console.log(
    `redis admissions: ${SECONDS} s, ${CLIENTS} concurrent, ${ACCOUNTS} accounts; each admission followed by its release`,
  );
  for (const r of results) {
    console.log(
      `${r.label}: ${r.admissionsPerSecond} admissions/s end to end (this process's bound); ` +
        `${r.perShardCpuSecond} admissions per Redis CPU-second (one shard's ceiling)`,
    );
    for (const s of r.shards) {
      console.log(
        `  shard :${s.port}: ${s.cpuSeconds.toFixed(2)} CPU s (${(s.share * 100).toFixed(0)} % of the work), ${s.scriptCalls} script calls, ${s.scriptMs.toFixed(0)} ms in scripts`,
      );
    }
  }
} finally {
  await Promise.allSettled([single.process.stop(), cluster.stop()]);
}
