/**
 * The stack one phase of `node bench/media-bench.ts` measures: its own empty redis-server and
 * s3rver, its own fresh SQLite file (the store `npm start` uses; the api and the workers share it),
 * the api and N image worker processes, all on free 127.0.0.1 ports, plus an account with keys.
 * More worker processes, each running one role (`WORKER_QUEUES`), can join while it runs, as an
 * autoscaler adds pods to a role's pool. Processes are owned through ./processes.ts (own process
 * group, stopped by pid only).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueName } from '../shared/src/jobs/queue-names.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { type BenchApi, startBenchApi } from './bench-api.ts';
import { type Owned, startProcess } from './processes.ts';

/** The api (./bench-api.ts: its Redis, for reading its queues, too) and the worker processes. */
export interface MediaStack extends Pick<BenchApi, 'url' | 'api' | 'redis' | 'redisUrl'> {
  readonly workers: readonly Owned[];
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
  const queuePrefix = `mb-${o.phase}`;
  const bench = await startBenchApi({
    root: o.root,
    phase: o.phase,
    sqlitePath,
    s3Dir: o.s3Dir,
    bucket: 'media-bench',
    logDir: o.logDir,
    env: {
      QUEUE_PREFIX: queuePrefix,
      OPENAI_BASE_URL: o.upstreamUrl,
      OPENAI_API_KEY: 'sk-test-fake-key',
      MEDIA_WAIT_TIMEOUT_MS: '60000',
      ...o.env,
    },
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
      // The api's settings, on the same SQLite file; info: a worker logs only that it is ready.
      env: {
        ...bench.env,
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
  const stopApps = async () => {
    for (const w of [...workers].reverse()) await w.stop(15_000).catch(() => undefined);
    await bench.stopApi(15_000).catch(() => undefined);
  };
  const stop = async () => {
    await stopApps();
    await bench.stop();
  };
  try {
    await Promise.all(Array.from({ length: o.workers }, () => addWorker('image', o.workerConcurrency)));
    const keys = await accountWithKeys(adminClient(bench.url, bench.adminToken), `media-${o.phase}`, o.keys);
    o.log(`${o.phase}: api pid ${bench.api.pid}, ${workers.length} worker(s), SQLite ${sqlitePath}`);
    const pool = (role: QueueName) => workers.filter((w) => roles.get(w) === role);
    return { ...bench, workers, queuePrefix, sqlitePath, keys, addWorker, pool, stopApps, stop };
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
