/**
 * The api a bench phase measures, as `npm start` runs it: its own empty Redis and s3rver, a fresh
 * SQLite file (`MONGO_URL` unset), loopback on a free port, warnings only, an operator token of its
 * own; owned by pid (./processes.ts). Each bench adds its own settings (upstream, catalogue…).
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { freePort } from '../infra/local-services/free-port.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import { type Owned, own, pinRunning, startProcess, waitForHttp } from './processes.ts';

export interface BenchApiOptions {
  readonly root: string;
  /** Names its processes and log file. */
  readonly phase: string;
  readonly sqlitePath: string;
  readonly s3Dir: string;
  readonly bucket: string;
  readonly logDir: string;
  /** Settings added to the bench's (or overriding them). */
  readonly env?: Readonly<Record<string, string>>;
  /** Before the entry script: `--import`, `--cpu-prof`… */
  readonly nodeFlags?: readonly string[];
  /** The api's CPUs and its Redis's (taskset; unpinned when undefined). */
  readonly cpus?: string;
  readonly redisCpus?: string;
}

export interface BenchApi {
  readonly api: Owned;
  readonly url: string;
  readonly adminToken: string;
  readonly redis: Owned;
  readonly redisUrl: string;
  /** The environment the api got: a worker of the same stack starts from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stops the api alone (SIGTERM, then SIGKILL after `graceMs`). */
  stopApi(graceMs?: number): Promise<void>;
  /** The api, then its Redis and s3rver. */
  stop(): Promise<void>;
}

/** Longer than the api's own SHUTDOWN_TIMEOUT_MS (10 s): it may flush settlements before exiting. */
export const API_STOP_GRACE_MS = 25_000;

/** Starts the services and the api, and resolves once its /readyz answers 200. */
export async function startBenchApi(o: BenchApiOptions): Promise<BenchApi> {
  const redisLocal = await startRedisServer('redis-server', { detached: true });
  const redis = own(`redis-server (${o.phase})`, redisLocal.process.child);
  pinRunning(redis.pid, o.redisCpus);
  const s3 = await startS3Server(o.s3Dir);
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    REDIS_URL: redisLocal.url,
    SQLITE_PATH: o.sqlitePath,
    // The phase's own request log, beside its money file (not the checkout's `.local/requests.db`,
    // which every api of a run would otherwise share, and which would grow from run to run).
    REQUEST_LOG_PATH: join(dirname(o.sqlitePath), 'requests.db'),
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_BUCKET: o.bucket,
    ADMIN_TOKEN: adminToken,
    ...o.env,
  };
  const api = startProcess({
    name: `api (${o.phase})`,
    command: process.execPath,
    args: [...(o.nodeFlags ?? []), 'api/src/main.ts'],
    cwd: o.root,
    env,
    logFile: join(o.logDir, `api-${o.phase}.log`),
    cpus: o.cpus,
  });
  const stopApi = (graceMs = API_STOP_GRACE_MS) => api.stop(graceMs);
  const stop = async () => {
    await stopApi().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await s3.stop().catch(() => undefined);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/readyz`, api, (status) => status === 200);
  } catch (err) {
    await stop();
    throw err;
  }
  return { api, url, adminToken, redis, redisUrl: redisLocal.url, env, stopApi, stop };
}
