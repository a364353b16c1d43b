/**
 * What one settlement batch costs the MongoDB-wire store (jongodb) by batch size: the real
 * `settleBatch` on an empty jongodb and Redis of its own, 8 accounts × 25 keys like the load
 * bench, the store's CPU time per batch (from /proc) and, apart, that of removing the batch's
 * closed entries the way bench/store-pruner.ts does. Guides `maxBatch` (settlement-batcher.ts).
 *
 *   node bench/batch-probe.ts [sizes, default 20,170,500,1300]
 */
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { startJongodb } from '../infra/local-services/jongodb.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { billingDeps } from '../shared/src/billing/billing.ts';
import { type DeferredSettlement, settleBatch } from '../shared/src/billing/settle-batch.ts';
import { loadConfig } from '../shared/src/config/config.ts';
import { createLogger } from '../shared/src/logging/logger.ts';
import { ensureIndexes } from '../shared/src/mongo/mongo.ts';
import { createRedis } from '../shared/src/redis/redis.ts';

const ROUNDS = 15;
const WARMUP = 3;
const sizes = (process.argv[2] ?? '20,170,500,1300').split(',').map(Number);

/** CPU ms a process has used so far (utime + stime, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function probe(size: number): Promise<string> {
  const [mongo, redisLocal] = await Promise.all([startJongodb(), startRedisServer()]);
  const client = new MongoClient(mongo.url);
  const redis = createRedis(redisLocal.url);
  try {
    const db = client.db('batch_probe');
    await ensureIndexes(db);
    const config = loadConfig({ MONGO_URL: mongo.url, REDIS_URL: redisLocal.url });
    const deps = billingDeps({ db, redis, config, logger: createLogger({ name: 'probe', level: 'error' }) });
    const ledger = db.collection<{ _id: string }>('ledger');
    const pid = mongo.process.child.pid as number;
    let seq = 0;
    let batchCpu = 0;
    let pruneCpu = 0;
    const wall: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch: DeferredSettlement[] = Array.from({ length: size }, (_, i) => ({
        input: {
          requestId: `req_probe_${seq++}`,
          accountId: `acct_probe_${i % 8}`,
          keyId: `key_probe_${i % 8}_${i % 25}`,
          model: 'openai/mock-delay-0',
          costMicros: 756_000n,
          usage: { inputTokens: 12, outputTokens: 9 },
        },
        at: new Date(),
      }));
      const before = cpuMs(pid);
      const started = performance.now();
      await settleBatch(deps, batch);
      await deps.background.drain();
      const settled = cpuMs(pid);
      wall.push(performance.now() - started);
      const rows = await ledger.find({ open: false }).limit(2_000).toArray();
      await ledger.deleteMany({ _id: { $in: rows.map((row) => row._id) } });
      if (round < WARMUP) continue;
      batchCpu += settled - before;
      pruneCpu += cpuMs(pid) - settled;
    }
    const n = ROUNDS - WARMUP;
    const perEntry = (batchCpu + pruneCpu) / n / size;
    return `| ${size} | ${median(wall.slice(WARMUP)).toFixed(1)} | ${(batchCpu / n).toFixed(1)} | ${(pruneCpu / n).toFixed(1)} | ${perEntry.toFixed(3)} |`;
  } finally {
    await client.close();
    redis.disconnect();
    await Promise.all([mongo.process.stop(), redisLocal.process.stop()]);
  }
}

process.stdout.write(
  '| batch | wall ms (median) | jongodb CPU ms per batch | pruning it, CPU ms | CPU ms per entry, both |\n|---|---|---|---|---|\n',
);
for (const size of sizes) process.stdout.write(`${await probe(size)}\n`);
