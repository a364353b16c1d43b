/**
 * The stack one phase of `node bench/media-bench.ts` measures: its own empty redis-server and
 * s3rver, its own fresh SQLite file (the store `npm start` uses; the api and the workers share it),
 * the api and N image worker processes, all on free 127.0.0.1 ports, plus an account with keys.
 * More worker processes, each running one role (`WORKER_QUEUES`), can join while it runs, as an
 * autoscaler adds pods to a role's pool. Processes are owned through ./processes.ts (own process
 * group, stopped by pid only).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../infra/local-services/free-port.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import type { QueueName } from '../shared/src/jobs/queue-names.ts';
import { benchApiEnv } from './api-env.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { type Owned, own, startProcess, waitForHttp } from './processes.ts';
import { median } from './stats.ts';
import { deliveredJobTimes } from './store-file.ts';

export interface MediaStack {
  readonly url: string;
  readonly api: Owned;
  readonly workers: readonly Owned[];
  readonly redis: Owned;
  /** The phase's Redis, for reading its queues. */
  readonly redisUrl: string;
  /** The queue prefix of the phase's api and workers (`QUEUE_PREFIX`). */
  readonly queuePrefix: string;
  /** The phase's SQLite file, shared by the api and the workers. */
  readonly sqlitePath: string;
  readonly keys: readonly string[];
  /** Starts one more worker process running `role` alone; resolves once it is ready. */
  addWorker(role: QueueName, concurrency: number): Promise<Owned>;
  /** The worker processes running `role`. */
  pool(role: QueueName): readonly Owned[];
  /** Stops the workers, then the api (graceful: queued charges are written), leaving Redis and S3. */
  stopApps(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  readonly root: string;
  readonly phase: string;
  readonly upstreamUrl: string;
  readonly workers: number;
  readonly workerConcurrency: number;
  readonly s3Dir: string;
  /** The phase's store folder: created empty; the SQLite file is `gateway.db` in it. */
  readonly storeDir: string;
  readonly logDir: string;
  readonly keys: number;
  readonly log: (line: string) => void;
  /** Further settings of the api and the workers. */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startMediaStack(o: StackOptions): Promise<MediaStack> {
  rmSync(o.storeDir, { recursive: true, force: true });
  mkdirSync(o.storeDir, { recursive: true });
  const sqlitePath = join(o.storeDir, 'gateway.db');
  const redisLocal = await startRedisServer('redis-server', { detached: true });
  const redis = own(`redis-server (${o.phase})`, redisLocal.process.child);
  const s3 = await startS3Server(o.s3Dir);
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const url = `http://127.0.0.1:${port}`;
  const queuePrefix = `mb-${o.phase}`;
  // The api and the workers share this SQLite file, as under `npm start`.
  const baseEnv = {
    ...benchApiEnv({ port, redisUrl: redisLocal.url, sqlitePath, s3, bucket: 'media-bench', adminToken }),
    QUEUE_PREFIX: queuePrefix,
    OPENAI_BASE_URL: o.upstreamUrl,
    OPENAI_API_KEY: 'sk-test-fake-key',
    MEDIA_WAIT_TIMEOUT_MS: '60000',
    ...o.env,
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
  const roles = new Map<Owned, QueueName>();
  const addWorker = async (role: QueueName, concurrency: number) => {
    const index = workers.length;
    const logFile = join(o.logDir, `worker-${o.phase}-${index}.log`);
    const worker = startProcess({
      name: `worker ${index} ${role} (${o.phase})`,
      command: process.execPath,
      args: ['workers/src/main.ts'],
      cwd: o.root,
      // info: the worker logs only 'worker started/ready' at info (nothing per job).
      env: {
        ...baseEnv,
        LOG_LEVEL: 'info',
        WORKER_QUEUES: role,
        [`WORKER_CONCURRENCY_${role.toUpperCase()}`]: String(concurrency),
      },
      logFile,
    });
    workers.push(worker);
    roles.set(worker, role);
    await waitForLine(logFile, /worker ready/, worker);
    return worker;
  };
  const pool = (role: QueueName) => workers.filter((w) => roles.get(w) === role);
  const stopApps = async () => {
    for (const w of [...workers].reverse()) await w.stop(15_000).catch(() => undefined);
    await api.stop(15_000).catch(() => undefined);
  };
  const stop = async () => {
    await stopApps();
    await redis.stop().catch(() => undefined);
    await s3.stop().catch(() => undefined);
  };
  try {
    await waitForHttp(`${url}/readyz`, api, (status) => status === 200);
    await Promise.all(Array.from({ length: o.workers }, () => addWorker('image', o.workerConcurrency)));
    const keys = await mediaAccountWithKeys(url, adminToken, o.phase, o.keys);
    o.log(
      `${o.phase}: api pid ${api.pid}, ${workers.length} worker(s) [${workers.map((w) => w.pid).join(', ')}], SQLite ${sqlitePath}`,
    );
    return {
      url,
      api,
      workers,
      redis,
      redisUrl: redisLocal.url,
      queuePrefix,
      sqlitePath,
      keys,
      addWorker,
      pool,
      stopApps,
      stop,
    };
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
 * Where a synchronous job's time goes, from its `media_jobs` row: created (api, after admission) ->
 * completed (worker: queue pickup, running update, provider, S3 put, completed update) -> last
 * update (api: woken, reads, marks delivered). Medians in ms (the store keeps ms timestamps).
 */
export function jobTimings(sqlitePath: string): Record<string, number> {
  const rows = deliveredJobTimes(sqlitePath);
  return {
    delivered: rows.length,
    createdToCompletedMs: median(rows.map((r) => (r.completed ?? Number.NaN) - r.created)),
    completedToDeliveredMs: median(rows.map((r) => r.updated - (r.completed ?? Number.NaN))),
  };
}
