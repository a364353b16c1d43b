/**
 * The stack one phase of `node bench/media-bench.ts` measures: its own empty redis-server, jongodb
 * and s3rver, the api and N image worker processes, all on free 127.0.0.1 ports, plus an account
 * with keys. Processes are owned through ./processes.ts (own process group, stopped by pid only).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from '../infra/local-services/free-port.ts';
import { startJongodb } from '../infra/local-services/jongodb.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { type Owned, own, startProcess, waitForHttp } from './processes.ts';

export interface MediaStack {
  readonly url: string;
  readonly api: Owned;
  readonly workers: readonly Owned[];
  readonly redis: Owned;
  readonly mongo: Owned;
  readonly mongoUrl: string;
  readonly keys: readonly string[];
  stop(): Promise<void>;
}

export interface StackOptions {
  readonly root: string;
  readonly phase: string;
  readonly upstreamUrl: string;
  readonly workers: number;
  readonly workerConcurrency: number;
  readonly s3Dir: string;
  readonly logDir: string;
  readonly keys: number;
  readonly log: (line: string) => void;
}

export async function startMediaStack(o: StackOptions): Promise<MediaStack> {
  const redisLocal = await startRedisServer('redis-server', { detached: true });
  const redis = own(`redis-server (${o.phase})`, redisLocal.process.child);
  const mongoLocal = await startJongodb({ detached: true });
  const mongo = own(`jongodb (${o.phase})`, mongoLocal.process.child);
  const s3 = await startS3Server(o.s3Dir);
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const url = `http://127.0.0.1:${port}`;
  const baseEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    REDIS_URL: redisLocal.url,
    MONGO_URL: mongoLocal.url,
    MONGO_DB: 'mediabench',
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_BUCKET: 'media-bench',
    QUEUE_PREFIX: `mb-${o.phase}`,
    OPENAI_BASE_URL: o.upstreamUrl,
    OPENAI_API_KEY: 'sk-test-fake-key',
    ADMIN_TOKEN: adminToken,
    MEDIA_WAIT_TIMEOUT_MS: '60000',
  };
  const api = startProcess({
    name: `api (${o.phase})`,
    command: process.execPath,
    args: ['api/src/main.ts'],
    cwd: o.root,
    env: baseEnv,
    logFile: join(o.logDir, `api-${o.phase}.log`),
  });
  const workers: Owned[] = [];
  const stop = async () => {
    for (const w of [...workers].reverse()) await w.stop(15_000).catch(() => undefined);
    await api.stop(15_000).catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await mongo.stop().catch(() => undefined);
    await s3.stop().catch(() => undefined);
  };
  try {
    await waitForHttp(`${url}/readyz`, api, (status) => status === 200);
    for (let i = 0; i < o.workers; i++) {
      const logFile = join(o.logDir, `worker-${o.phase}-${i}.log`);
      workers.push(
        startProcess({
          name: `worker ${i} (${o.phase})`,
          command: process.execPath,
          args: ['workers/src/main.ts'],
          cwd: o.root,
          // info: the worker logs only 'worker started/ready' at info (nothing per job).
          env: {
            ...baseEnv,
            LOG_LEVEL: 'info',
            WORKER_QUEUES: 'image',
            WORKER_CONCURRENCY_IMAGE: String(o.workerConcurrency),
          },
          logFile,
        }),
      );
    }
    await Promise.all(
      workers.map((w, i) => waitForLine(join(o.logDir, `worker-${o.phase}-${i}.log`), /worker ready/, w)),
    );
    const keys = await mediaAccountWithKeys(url, adminToken, o.phase, o.keys);
    o.log(
      `${o.phase}: api pid ${api.pid}, ${workers.length} worker(s) [${workers.map((w) => w.pid).join(', ')}], jongodb pid ${mongo.pid}`,
    );
    return { url, api, workers, redis, mongo, mongoUrl: mongoLocal.url, keys, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitForLine(file: string, pattern: RegExp, owned: Owned, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (owned.child.exitCode !== null || owned.child.signalCode !== null)
      throw new Error(`${owned.name} exited before it was ready (see ${file})`);
    if (existsSync(file) && pattern.test(readFileSync(file, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${owned.name} not ready after ${timeoutMs} ms (see ${file})`);
}

async function mediaAccountWithKeys(
  url: string,
  token: string,
  label: string,
  count: number,
): Promise<string[]> {
  return accountWithKeys(adminClient(url, token), `media-${label}`, count);
}

/** Document counts of the collections jongodb writes per job (its write cost grows with them). */
export async function collectionSizes(mongoUrl: string): Promise<Record<string, number | null>> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 3_000 });
  const out: Record<string, number | null> = {};
  try {
    const db = client.db('mediabench');
    for (const name of ['media_jobs', 'ledger']) {
      out[name] = await db
        .collection(name)
        .countDocuments({}, { maxTimeMS: 20_000 })
        .catch(() => null);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  return out;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime = field 14, stime = field 15.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Where a synchronous job's time goes, from its document: created (api, after admission) ->
 * completed (worker: queue pickup, running update, provider, S3 put, completed update) -> last
 * update (api: woken, reads, marks delivered). Medians in ms, and jongodb's cost of one insert and
 * one update at the collection's present size (probed on a scratch collection of the same size).
 */
export async function jobTimings(
  mongoUrl: string,
  probeCollection = 'bench_probe',
): Promise<Record<string, number>> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 3_000 });
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] ?? Number.NaN;
  };
  try {
    const db = client.db('mediabench');
    const docs = await db
      .collection('media_jobs')
      .find({ status: 'delivered' }, { projection: { createdAt: 1, completedAt: 1, updatedAt: 1 } })
      .toArray();
    const t = (d: Record<string, unknown>, k: string) =>
      d[k] instanceof Date ? (d[k] as Date).getTime() : Number.NaN;
    const probe = db.collection<{ _id: string; v: number }>(probeCollection);
    const insertMs: number[] = [];
    const updateMs: number[] = [];
    for (let i = 0; i < 10; i++) {
      let at = performance.now();
      await probe.insertOne({ _id: `bench-probe-${i}`, v: 0 });
      insertMs.push(performance.now() - at);
      at = performance.now();
      await probe.updateOne({ _id: `bench-probe-${i}`, v: 0 }, { $set: { v: 1 } });
      updateMs.push(performance.now() - at);
    }
    if (probeCollection === 'bench_probe') await probe.drop().catch(() => undefined);
    return {
      delivered: docs.length,
      createdToCompletedMs: median(docs.map((d) => t(d, 'completedAt') - t(d, 'createdAt'))),
      completedToDeliveredMs: median(docs.map((d) => t(d, 'updatedAt') - t(d, 'completedAt'))),
      mongoInsertSmallMs: median(insertMs),
      mongoUpdateSmallMs: median(updateMs),
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}
