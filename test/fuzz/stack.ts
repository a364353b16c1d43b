/**
 * The gateway the full fuzz run drives: its own redis-server (in memory), s3rver and SQLite file
 * in a scratch folder, then `node api/src/main.ts` and `node workers/src/main.ts` as separate
 * processes, offline (`SIMULATE_PROVIDERS=true`, no provider keys in their environment). Only what
 * this module started is stopped, by its own handles.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../infra/local-services/free-port.ts';
import { type LocalRedis, startRedisServer } from '../../infra/local-services/redis-server.ts';
import { type LocalS3, startS3Server } from '../../infra/local-services/s3-server.ts';
import { type SpawnedEntry, spawnEntry } from '../helpers/spawn-entry.ts';
import { collectGarbage } from './inspector.ts';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface FuzzStack {
  readonly origin: string;
  readonly adminToken: string;
  /** The environment of the api and the worker (the ledger check runs with it too). */
  readonly env: Readonly<Record<string, string>>;
  readonly api: SpawnedEntry;
  readonly worker: SpawnedEntry;
  /** The api process's resident set size, in bytes (`/proc/<pid>/status` VmRSS). */
  apiRss(): number;
  /** A full garbage collection in the api (through its inspector, test/fuzz/inspector.ts). */
  collectApiGarbage(): Promise<void>;
  /** Log lines of level error or above the api and the worker wrote (JSON logs, level ≥ 50). */
  errorLines(): string[];
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra or replaced variables of the api and worker environment. */
  readonly env?: Record<string, string>;
}

/** Values the fuzz run sets (docs/reliability.md says why). */
export const FUZZ_APP_ENV = {
  LOG_LEVEL: 'warn',
  SIMULATE_PROVIDERS: 'true',
  // A stalled body is answered 408 within 1–1.25× this, well inside the client's deadline.
  BODY_READ_TIMEOUT_MS: '3000',
  // A media request is answered (504) inside the client's deadline even if its job never runs.
  MEDIA_WAIT_TIMEOUT_MS: '20000',
  DEMO_VIDEO_RENDER_MS: '500',
  VIDEO_POLL_INTERVAL_MS: '500',
  WORKER_QUEUES: 'image,speech,transcription,video',
} as const;

export async function startFuzzStack(options: StackOptions = {}): Promise<FuzzStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-fuzz-'));
  let redis: LocalRedis | undefined;
  let s3: LocalS3 | undefined;
  let api: SpawnedEntry | undefined;
  let worker: SpawnedEntry | undefined;
  const stop = async () => {
    for (const child of [api, worker]) {
      if (child !== undefined && child.child.exitCode === null && child.child.signalCode === null) {
        child.child.kill('SIGTERM');
        await child.exited(15_000);
      }
    }
    await redis?.process.stop();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    redis = await startRedisServer();
    s3 = await startS3Server(join(dir, 's3'));
    const port = await freePort();
    const adminToken = randomBytes(24).toString('hex');
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(port),
      REDIS_URL: redis.url,
      SQLITE_PATH: join(dir, 'gateway.db'),
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_BUCKET: 'fuzz-media',
      QUEUE_PREFIX: 'fuzz',
      ADMIN_TOKEN: adminToken,
      ...FUZZ_APP_ENV,
      ...options.env,
    };
    // The api first: it creates the bucket and the SQLite schema the worker then opens.
    // The api's inspector (loopback only) lets the run collect its garbage before judging its RSS.
    const inspectorPort = await freePort();
    api = spawnEntry(join(REPO_ROOT, 'api/src/main.ts'), {
      ...env,
      NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}`,
    });
    const origin = `http://127.0.0.1:${port}`;
    await waitReady(origin, api);
    worker = spawnEntry(join(REPO_ROOT, 'workers/src/main.ts'), env);
    const apiPid = api.child.pid as number;
    const started = { api, worker };
    return {
      origin,
      adminToken,
      env,
      api,
      worker,
      apiRss: () => rssOf(apiPid),
      collectApiGarbage: () => collectGarbage(inspectorPort),
      errorLines: () => [started.api, started.worker].flatMap((p) => errorLinesOf(p.output())),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitReady(origin: string, api: SpawnedEntry, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (api.child.exitCode !== null) throw new Error(`the api exited before it was ready:\n${api.output()}`);
    try {
      const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`the api was not ready within ${timeoutMs} ms:\n${api.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** VmRSS of a process, in bytes. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

function errorLinesOf(output: string): string[] {
  return output.split('\n').filter((line) => {
    if (!line.startsWith('{')) return line.trim() !== '' && /error|exception/i.test(line);
    try {
      return Number((JSON.parse(line) as { level?: unknown }).level) >= 50;
    } catch {
      return false;
    }
  });
}
