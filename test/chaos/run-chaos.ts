/**
 * The chaos runner shared by `npm run chaos` (scripts/chaos.ts) and its short version in `npm test`
 * (test/chaos/chaos-short.test.ts).
 *
 * It starts everything it needs and nothing else: its own redis-server (append-only file in a
 * scratch folder), s3rver, one SQLite file, api replicas (`node api/src/main.ts` on their own ports)
 * and worker processes (`node workers/src/main.ts`), all on one store, Redis and queue prefix, with
 * the demo simulator, short hold leases and a fast reconciler. It makes funded accounts and keys
 * through `/admin/v1`, drives a mixed load across the replicas while a seeded schedule SIGKILLs
 * workers and apis (each started again) and restarts Redis (with its data, or empty), then lets the
 * system settle (bounded) and checks: every video final, no media job left unfinished, no job lost,
 * no double charge, charges only for successful answers, no hold left after the leases, the ledger
 * check, 5xx answered by live processes, RSS of the apis before and after.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { freePort } from '../../infra/local-services/free-port.ts';
import { type ClientKey, type SentRequest, startLoad } from './load.ts';
import { ChaosRedis, ManagedProcess, rssBytes, startS3, type UnexpectedExit } from './processes.ts';
import {
  type ChaosAction,
  type ExecutedEvent,
  type PlannedEvent,
  planSchedule,
  runSchedule,
} from './schedule.ts';
import {
  analyse,
  type ChaosFigures,
  readHolds,
  readJobs,
  readLedger,
  runLedgerCheck,
  unfinishedJobs,
  withLogEvidence,
} from './verify.ts';

export interface ChaosOptions {
  readonly seed: number;
  /** How long the load (and the schedule) runs. */
  readonly loadMs: number;
  readonly apis: number;
  readonly workers: number;
  readonly clients: number;
  readonly accounts: number;
  /** The schedule's events, in order, spread over [firstEventMs, lastEventMs] of the load. */
  readonly actions: readonly ChaosAction[];
  readonly firstEventMs: number;
  readonly lastEventMs: number;
  readonly apiDownMs: number;
  readonly workerDownMs: number;
  readonly redisDownMs: number;
  /** The gateway's settings for the run. */
  readonly holdLeaseMs: number;
  readonly reconcileIntervalMs: number;
  readonly demoVideoRenderMs: number;
  readonly videoPollIntervalMs: number;
  readonly videoDeadlineMs: number;
  readonly mediaWaitTimeoutMs: number;
  readonly workerLockMs: number;
  readonly workerStalledIntervalMs: number;
  /** Longest wait, after the load, for every video and media job to be final. */
  readonly settleTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly thinkMs: number;
  readonly backoffMs: number;
  /** 503s answered this long after Redis is back still count as "Redis down" (reconnection). */
  readonly redisGraceMs: number;
  /** Keep the scratch folder (store, Redis data, logs): always, or only when a check failed. */
  readonly keepScratch: 'always' | 'on-failure';
  readonly log: (line: string) => void;
}

/** The standing schedule of `npm run chaos`. */
export const FULL_ACTIONS: readonly ChaosAction[] = [
  'kill-worker',
  'kill-api',
  'restart-redis',
  'kill-worker',
  'kill-api',
  'restart-redis-empty',
  'kill-api-and-worker',
  'kill-worker',
];

export const FULL_OPTIONS: Omit<ChaosOptions, 'log'> = {
  seed: 1,
  loadMs: 180_000,
  apis: 2,
  workers: 3,
  clients: 12,
  accounts: 3,
  actions: FULL_ACTIONS,
  firstEventMs: 15_000,
  lastEventMs: 155_000,
  apiDownMs: 1_500,
  workerDownMs: 1_000,
  redisDownMs: 3_000,
  holdLeaseMs: 3_000,
  reconcileIntervalMs: 2_000,
  demoVideoRenderMs: 4_000,
  videoPollIntervalMs: 500,
  videoDeadlineMs: 90_000,
  mediaWaitTimeoutMs: 20_000,
  workerLockMs: 4_000,
  workerStalledIntervalMs: 2_000,
  settleTimeoutMs: 150_000,
  requestTimeoutMs: 60_000,
  thinkMs: 25,
  backoffMs: 500,
  redisGraceMs: 5_000,
  keepScratch: 'on-failure',
};

/** How long the load goes on after the last event of the schedule, at least. */
const LOAD_AFTER_LAST_EVENT_MS = 3_000;

/** The short version in `npm test`: ~40 s of load, one worker kill, one api kill, one Redis restart. */
export const SHORT_OPTIONS: Omit<ChaosOptions, 'log'> = {
  ...FULL_OPTIONS,
  loadMs: 40_000,
  workers: 2,
  clients: 6,
  accounts: 2,
  actions: ['kill-worker', 'kill-api', 'restart-redis'],
  firstEventMs: 7_000,
  lastEventMs: 24_000,
  demoVideoRenderMs: 3_000,
  videoDeadlineMs: 60_000,
  mediaWaitTimeoutMs: 12_000,
  settleTimeoutMs: 35_000,
  requestTimeoutMs: 30_000,
  thinkMs: 40,
};

export interface RssFigures {
  readonly name: string;
  readonly before: { pid: number | undefined; bytes: number | null };
  readonly after: { pid: number | undefined; bytes: number | null };
  readonly peakBytes: number;
  readonly starts: number;
  /** RSS every 15 s of the load (null: the replica was down at that moment). */
  readonly samples: ReadonlyArray<number | null>;
}

export interface ChaosResult {
  readonly options: Omit<ChaosOptions, 'log'>;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly loadMs: number;
  readonly settleMs: number;
  readonly settled: boolean;
  readonly plan: readonly PlannedEvent[];
  readonly events: readonly ExecutedEvent[];
  readonly redisOutages: ReadonlyArray<{ from: number; to: number | undefined; empty: boolean }>;
  readonly figures: ChaosFigures;
  readonly rss: readonly RssFigures[];
  readonly scratchDir: string;
  readonly scratchKept: boolean;
  readonly records: readonly SentRequest[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { log } = options;
  const startedAt = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'gw-chaos-'));
  const logDir = join(scratch, 'logs');
  mkdirSync(logDir, { recursive: true });
  log(`scratch folder ${scratch} (store, Redis data, S3 objects, process logs); seed ${options.seed}`);

  const unexpectedExits: UnexpectedExit[] = [];
  let stopping = false;
  const all: ManagedProcess[] = [];
  const onUnexpectedExit = (exit: UnexpectedExit) => {
    unexpectedExits.push(exit);
    log(`UNEXPECTED: ${exit.name} pid ${exit.pid} exited (code ${exit.code}, signal ${exit.signal})`);
    const managed = all.find((p) => p.name === exit.name);
    if (managed !== undefined && !stopping)
      void managed.start().then(
        () => log(`${exit.name} started again, pid ${managed.pid}`),
        (err: unknown) => log(`${exit.name} did not start again: ${String(err).slice(0, 300)}`),
      );
  };

  const redis = new ChaosRedis(await freePort(), join(scratch, 'redis'), onUnexpectedExit);
  const killAllNow = () => {
    for (const p of all) p.killNow();
    redis.killNow();
  };
  process.once('exit', killAllNow);
  let s3: Awaited<ReturnType<typeof startS3>> | undefined;
  let scratchKept = true;
  try {
    await redis.start();
    s3 = await startS3(join(scratch, 's3'));
    const queuePrefix = 'chaos';
    const adminToken = randomBytes(24).toString('base64url');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REDIS_URL: redis.url,
      SQLITE_PATH: join(scratch, 'gateway.db'),
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_BUCKET: 'chaos-media',
      S3_FORCE_PATH_STYLE: 'true',
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN: adminToken,
      SIMULATE_PROVIDERS: 'true',
      HOLD_LEASE_MS: String(options.holdLeaseMs),
      RECONCILE_INTERVAL_MS: String(options.reconcileIntervalMs),
      DEMO_VIDEO_RENDER_MS: String(options.demoVideoRenderMs),
      VIDEO_POLL_INTERVAL_MS: String(options.videoPollIntervalMs),
      VIDEO_DEADLINE_MS: String(options.videoDeadlineMs),
      MEDIA_WAIT_TIMEOUT_MS: String(options.mediaWaitTimeoutMs),
      WORKER_LOCK_DURATION_MS: String(options.workerLockMs),
      WORKER_STALLED_INTERVAL_MS: String(options.workerStalledIntervalMs),
      SHUTDOWN_TIMEOUT_MS: '5000',
    };
    const apis: ManagedProcess[] = [];
    for (let i = 0; i < options.apis; i++)
      apis.push(new ManagedProcess(`api-${i}`, 'api', await freePort(), env, logDir, onUnexpectedExit));
    const workers = Array.from(
      { length: options.workers },
      (_, i) =>
        // "worker ready" is an info line: workers log at info (to their own file).
        new ManagedProcess(
          `worker-${i}`,
          'worker',
          undefined,
          { ...env, LOG_LEVEL: 'info' },
          logDir,
          onUnexpectedExit,
        ),
    );
    all.push(...apis, ...workers);
    // The first api creates the schema and the bucket; the others start beside it.
    await (apis[0] as ManagedProcess).start();
    await Promise.all([...apis.slice(1), ...workers].map((p) => p.start()));
    log(
      `started redis-server pid ${redis.child?.pid} (${redis.url}), s3rver ${s3.endpoint}, ${all.map((p) => `${p.name} pid ${p.pid}`).join(', ')}`,
    );

    const keys = await makeKeys(
      (apis[0] as ManagedProcess).origin,
      adminToken,
      options.accounts,
      options.clients,
    );
    log(`${options.accounts} accounts funded, ${keys.length} keys`);

    const rssBefore = apis.map((api) => ({ pid: api.pid, bytes: rssBytes(api.pid) }));
    const peaks = new Map<string, number>();
    const sampler = setInterval(() => {
      for (const api of apis) peaks.set(api.name, Math.max(peaks.get(api.name) ?? 0, rssBytes(api.pid) ?? 0));
    }, 1_000).unref();

    // The load and the schedule.
    const plan = planSchedule(options.actions, {
      seed: options.seed,
      firstMs: options.firstEventMs,
      lastMs: options.lastEventMs,
      apis: options.apis,
      workers: options.workers,
    });
    log(
      `schedule (seed ${options.seed}): ${plan.map((e) => `${(e.atMs / 1000).toFixed(1)}s ${e.action}${e.action.includes('api') ? ` api-${e.api}` : ''}${e.action.includes('worker') ? ` worker-${e.worker}` : ''}`).join('; ')}`,
    );
    const loadStartedAt = Date.now();
    log(`load: ${options.clients} clients for ${options.loadMs / 1000} s`);
    const load = startLoad(apis, keys, {
      clients: options.clients,
      seed: options.seed,
      requestTimeoutMs: options.requestTimeoutMs,
      thinkMs: options.thinkMs,
      backoffMs: options.backoffMs,
    });
    const schedule = runSchedule(
      plan,
      {
        apis,
        workers,
        redis,
        apiDownMs: options.apiDownMs,
        workerDownMs: options.workerDownMs,
        redisDownMs: options.redisDownMs,
      },
      loadStartedAt,
      log,
    );
    const samples = new Map<string, Array<number | null>>(apis.map((api) => [api.name, []]));
    const progress = setInterval(() => {
      const records = load.records;
      const answered = records.filter((r) => r.endedAt > 0).length;
      const rssNow = apis.map((api) => {
        const bytes = api.up ? rssBytes(api.pid) : null;
        samples.get(api.name)?.push(bytes);
        return `${api.name} ${bytes === null ? 'down' : `${Math.round(bytes / 1024 / 1024)} MB`}`;
      });
      log(
        `t=${((Date.now() - loadStartedAt) / 1000).toFixed(0)}s ${records.length} requests sent, ${answered} ended; RSS ${rssNow.join(', ')}`,
      );
    }, 15_000).unref();
    // The load runs for loadMs, and on until every planned event has happened and a little after:
    // on a slow machine a restart can take long enough to push the last events past the planned
    // load, and an event must still happen under load (and not be skipped).
    try {
      await Promise.all([sleep(options.loadMs), schedule.then(() => sleep(LOAD_AFTER_LAST_EVENT_MS))]);
    } finally {
      // Also when an event failed: the clients stop before the processes are stopped.
      await load.stop();
      clearInterval(progress);
    }
    const events = await schedule;
    const loadMs = Date.now() - loadStartedAt;
    log(`load stopped after ${(loadMs / 1000).toFixed(1)} s: ${load.records.length} requests`);

    // Settle: every process up, then every video and media job final (bounded).
    for (const p of all) {
      const alive = p.child !== undefined && p.child.exitCode === null && p.child.signalCode === null;
      if (!alive) await p.start().catch((err: unknown) => log(`${p.name} did not start: ${String(err)}`));
    }
    const settleStartedAt = Date.now();
    const keyOf = (record: SentRequest) => keys[record.client % keys.length] as ClientKey;
    const videoRecords = load.records.filter((r) => r.kind === 'video' && r.status === 202 && r.videoId);
    const videoFinal = new Map<string, { status: string; costMicros?: bigint; error?: string }>();
    let settled = false;
    while (Date.now() - settleStartedAt < options.settleTimeoutMs) {
      await pollVideos(apis, videoRecords, keyOf, videoFinal);
      const open = unfinishedJobs(env.SQLITE_PATH as string);
      const videosOpen = videoRecords.filter((r) => !isFinalVideo(videoFinal.get(r.videoId as string)));
      if (open.length === 0 && videosOpen.length === 0) {
        settled = true;
        break;
      }
      await sleep(1_000);
    }
    const settleMs = Date.now() - settleStartedAt;
    log(
      `settle: ${settled ? 'every video and media job final' : 'NOT settled'} after ${(settleMs / 1000).toFixed(1)} s`,
    );
    // The leases of the last requests' holds pass; then nothing may be held any more.
    await sleep(options.holdLeaseMs + 1_500);
    const holds = await readHolds(redis.url, queuePrefix);
    const ledgerCheck = await runLedgerCheck({ ...env, LOG_LEVEL: 'warn' });
    const ledger = readLedger(env.SQLITE_PATH as string);
    const jobs = readJobs(env.SQLITE_PATH as string);
    clearInterval(sampler);
    const rss: RssFigures[] = apis.map((api, i) => ({
      name: api.name,
      before: rssBefore[i] as { pid: number | undefined; bytes: number | null },
      after: { pid: api.pid, bytes: rssBytes(api.pid) },
      peakBytes: peaks.get(api.name) ?? 0,
      starts: api.pids.length,
      samples: samples.get(api.name) ?? [],
    }));

    stopping = true;
    await Promise.all(all.map((p) => p.stop()));
    await redis.stop();

    const figures = analyse({
      records: load.records,
      apis: apis.map((api) => ({ name: api.name, kills: api.kills })),
      redisOutages: redis.outages,
      redisGraceMs: options.redisGraceMs,
      settleWindowMs: 2_000,
      videoFinal,
      jobs,
      ledger,
      holds,
      ledgerCheck,
      unexpectedExits,
      scheduleErrors: events.flatMap((event) => (event.error === undefined ? [] : [event.error])),
      startedAt: loadStartedAt,
    });
    figures.violations.splice(
      0,
      figures.violations.length,
      ...withLogEvidence(figures.violations, logDir, loadStartedAt),
    );
    if (!settled) figures.violations.unshift(`not settled within ${options.settleTimeoutMs} ms`);
    scratchKept = options.keepScratch === 'always' || figures.violations.length > 0;
    if (scratchKept) writeRecords(join(scratch, 'requests.jsonl'), load.records);
    const { log: _log, ...plainOptions } = options;
    return {
      options: plainOptions,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: Date.now() - startedAt,
      loadMs,
      settleMs,
      settled,
      plan,
      events,
      redisOutages: redis.outages,
      figures,
      rss,
      scratchDir: scratch,
      scratchKept,
      records: load.records,
    };
  } finally {
    stopping = true;
    await Promise.allSettled(all.map((p) => p.stop(3_000)));
    for (const p of all) p.closeLog();
    await redis.stop().catch(() => undefined);
    await s3?.stop().catch(() => undefined);
    process.removeListener('exit', killAllNow);
    if (!scratchKept) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every request as the client saw it, one JSON line each (kept with the scratch folder). */
function writeRecords(path: string, records: readonly SentRequest[]): void {
  const lines = records.map((record) =>
    JSON.stringify(record, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function isFinalVideo(final: { status: string } | undefined): boolean {
  return final?.status === 'completed' || final?.status === 'failed';
}

/** GET /v1/videos/{id} for every video not known final yet, on an api that is up. */
async function pollVideos(
  apis: readonly ManagedProcess[],
  records: readonly SentRequest[],
  keyOf: (record: SentRequest) => ClientKey,
  final: Map<string, { status: string; costMicros?: bigint; error?: string }>,
): Promise<void> {
  for (const record of records) {
    const id = record.videoId as string;
    if (isFinalVideo(final.get(id))) continue;
    const api = apis.find((a) => a.up);
    if (api === undefined) return;
    try {
      const res = await fetch(`${api.origin}/v1/videos/${id}`, {
        headers: { authorization: `Bearer ${keyOf(record).key}` },
        dispatcher: api.agent,
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json()) as {
        status?: string;
        service?: { cost?: number };
        error?: { message?: string };
      };
      if (res.status !== 200) {
        final.set(id, { status: `HTTP ${res.status}` });
        continue;
      }
      final.set(id, {
        status: body.status ?? 'unknown',
        ...(typeof body.service?.cost === 'number'
          ? { costMicros: BigInt(Math.round(body.service.cost * 1_000_000)) }
          : {}),
        ...(body.error?.message ? { error: body.error.message } : {}),
      });
    } catch {
      // asked again on the next round
    }
  }
}

/** Funded accounts (1,000,000 IRT each) and one key per client (rate limit 3000 a minute). */
async function makeKeys(
  origin: string,
  token: string,
  accounts: number,
  clients: number,
): Promise<ClientKey[]> {
  const admin = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${origin}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201)
      throw new Error(`POST /admin/v1${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  const ids: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const account = await admin<{ id: string }>('/accounts', {
      email: `chaos-${i}@chaos.invalid`,
      name: `chaos ${i}`,
    });
    await admin(`/accounts/${account.id}/topups`, { amount: 1_000_000, reference: 'chaos' });
    ids.push(account.id);
  }
  const keys: ClientKey[] = [];
  for (let i = 0; i < clients; i++) {
    const accountId = ids[i % ids.length] as string;
    const created = await admin<{ key: string }>(`/accounts/${accountId}/keys`, {
      name: `chaos-client-${i}`,
      rate_limit: 3000,
    });
    keys.push({ accountId, key: created.key });
  }
  return keys;
}
