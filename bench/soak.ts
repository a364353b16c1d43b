/**
 * `npm run bench:soak`: the durable store's acceptance check on the local stack of `npm start`.
 *
 * Starts `node infra/local-stack.ts` (the api and one worker on one SQLite file, node:sqlite, WAL)
 * with a fresh `SQLITE_PATH` in this run's scratch folder, a free `PORT` and its own `ADMIN_TOKEN`;
 * makes funded accounts and keys through the operator API (rate limit 3000 a minute each, enough
 * keys that the per-key limit never refuses); then 50 clients in a closed loop send
 * `POST /v1/chat/completions` for `demo/chat` (the built-in demo provider: it answers in process, no
 * simulated delay, i.e. "0 ms upstream") for SOAK_SECONDS. It records the answers per second by
 * status and their latencies, stops the stack with SIGINT (it stops its api, worker and services),
 * runs the ledger check on the closed file (`node scripts/ledger-check.ts` and the same comparison
 * read-only in SQL) and writes bench/SOAK-RESULTS.md: windows of 5 s without answers (must be none),
 * last minute's throughput over the first's (≥ 0.9), non-200 answers by status (no 503/429), p50 and
 * p99 latency (p99 ≤ 50 ms), the ledger verdict, and the store file's size and rows.
 *
 * Redis and S3: by default this script starts a fresh redis-server (append-only file in the scratch
 * folder, the stack's own settings) and s3rver for the stack and passes REDIS_URL / S3_ENDPOINT, so
 * the run starts empty and never touches `.local/redis` or `.local/s3`, which a developer's `npm start`
 * may be using; SOAK_SERVICES=stack lets the stack start its own there, exactly as `npm start`.
 * The stack's demo-account seed writes `.local/demo-key.json`; the file is put back as it was.
 *
 * Everything started is stopped at the end, on failure, on Ctrl-C and at the time limit (the stack
 * by SIGINT to its pid, then what it started by pid if it did not stop them).
 * Knobs (env): see "How to run" in bench/SOAK-RESULTS.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { freePort } from '../infra/local-services/free-port.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { writeKeepingAnalysis } from './kept-analysis.ts';
import { formatLoopDelay, LOOP_DELAY_PRELOAD, type LoopDelay, loopDelayOf } from './loop-delay.ts';
import { cpuSeconds } from './media-stack.ts';
import { type Owned, own, pinRunning } from './processes.ts';
import { percentileOfSorted } from './stats.ts';
import {
  checkLedger,
  describeVerdict,
  formatSize,
  type LedgerVerdict,
  type StoreSnapshot,
  snapshotStore,
} from './store-file.ts';
import { workTreeLabel } from './work-tree.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) =>
  env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
const haveWrk = ['/usr/bin', ...(env.PATH ?? '').split(':')].some((dir) => existsSync(join(dir, 'wrk')));

const settings = {
  seconds: num('SOAK_SECONDS', 300),
  warmupSeconds: num('SOAK_WARMUP_SECONDS', 5),
  clients: num('SOAK_CLIENTS', 50),
  accounts: num('SOAK_ACCOUNTS', 8),
  keysPerAccount: 25,
  rateLimit: 3000,
  model: env.SOAK_MODEL ?? 'demo/chat',
  loadgen: (env.SOAK_LOADGEN ?? 'node') as 'node' | 'wrk',
  services: (env.SOAK_SERVICES ?? 'bench') as 'bench' | 'stack',
  logLevel: env.SOAK_LOG_LEVEL ?? 'warn',
  storesCpus: env.STORES_CPUS ?? '',
  loopDelay: env.SOAK_LOOP_DELAY !== '0',
  keepStore: env.SOAK_KEEP_STORE === '1',
};
const timeLimitS = num('SOAK_TIME_LIMIT_S', settings.seconds + settings.warmupSeconds + 240);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const OUT = join(ROOT, 'bench', 'results', `soak-${stamp}`);
const SQLITE_PATH = join(OUT, 'gateway.db');
const LOOP_DELAY_DIR = join(OUT, 'loop-delay');
const DEMO_KEY_FILE = join(ROOT, '.local', 'demo-key.json');
const BODY = JSON.stringify({
  model: settings.model,
  messages: [{ role: 'user', content: 'Say hello to the soak test.' }],
});
const log = (line: string) => process.stdout.write(`[soak] ${line}\n`);

/** The thresholds of the acceptance check. */
const ACCEPT = { silentWindowS: 5, lastOverFirst: 0.9, p99Ms: 50 } as const;

// ---------------------------------------------------------------------------------------------
// The stack and what it started

interface Stack {
  readonly child: ChildProcess;
  readonly origin: string;
  readonly adminToken: string;
  /** Pids the stack reported starting (api, worker, redis-server when it starts one). */
  readonly pids: Map<string, number>;
}

let stack: Stack | undefined;
const services: Owned[] = [];
const closers: (() => Promise<void>)[] = [];
/** `.local/demo-key.json` before the stack started (null: absent), and the key this run's seed wrote. */
let demoKeyBefore: string | null | undefined;
let demoKeyOfRun: string | undefined;
let localDirBefore = true;

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function startStack(redisUrl: string | undefined, s3: Record<string, string>): Promise<Stack> {
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const stackEnv: NodeJS.ProcessEnv = { ...env };
  // The store of `npm start` when MONGO_URL is unset: the SQLite file.
  for (const name of ['MONGO_URL', 'MONGO_DB', 'REDIS_URL', 'S3_ENDPOINT', 'SQLITE_PATH'])
    delete stackEnv[name];
  Object.assign(stackEnv, {
    HOST: '127.0.0.1',
    PORT: String(port),
    SQLITE_PATH,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: settings.logLevel,
    ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
    ...s3,
  });
  if (settings.loopDelay) {
    // Inherited by the api and the worker the stack spawns; ./loop-delay-preload.ts records in
    // those two only (by their entry script), without changing them.
    stackEnv.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import=${LOOP_DELAY_PRELOAD}`.trim();
    stackEnv.BENCH_LOOP_DELAY_DIR = LOOP_DELAY_DIR;
  }
  const child = spawn(process.execPath, ['infra/local-stack.ts'], {
    cwd: ROOT,
    env: stackEnv,
    detached: true, // its own process group: a Ctrl-C here reaches this script, which stops it in order
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Stack = {
    child,
    origin: `http://127.0.0.1:${port}`,
    adminToken,
    pids: new Map(),
  };
  stack = started;
  const logFile = createWriteStream(join(OUT, 'stack.log'), { flags: 'a' });
  let ready: (() => void) | undefined;
  const readyNow = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const scan = (line: string) => {
    logFile.write(`${line}\n`);
    const pid = /\[stack\] started (api|worker|redis-server) pid=(\d+)/.exec(line);
    if (pid?.[1] !== undefined && pid[2] !== undefined) started.pids.set(pid[1], Number(pid[2]));
    const key = /demo key: (\S+)/.exec(line);
    if (key?.[1] !== undefined) demoKeyOfRun = key[1];
    if (line.startsWith('Gateway ready at ')) ready?.();
  };
  for (const stream of [child.stdout, child.stderr])
    if (stream !== null)
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', scan);
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(
      `the stack exited before it was ready (${code ?? signal}); see ${relative(ROOT, OUT)}/stack.log`,
    );
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('the stack was not ready after 90 s')), 90_000).unref(),
  );
  await Promise.race([readyNow, exited, timeout]);
  exited.catch(() => undefined);
  return started;
}

/** SIGINT to the stack (it stops the api, the worker, then its services); by pid after 45 s. */
async function stopStack(): Promise<void> {
  const s = stack;
  if (s === undefined) return;
  if (isRunning(s.child)) {
    const exited = once(s.child, 'exit');
    s.child.kill('SIGINT');
    const timer = setTimeout(() => {
      log('the stack did not stop within 45 s: killing it and what it started, by pid');
      killStackNow();
    }, 45_000);
    await exited;
    clearTimeout(timer);
  }
  // Anything it reported starting and that outlived it (it stops them; this is the safety net).
  for (const [name, pid] of s.pids) {
    try {
      process.kill(pid, 0);
      log(`${name} (pid ${pid}) outlived the stack: SIGKILL`);
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  stack = undefined;
}

function killStackNow(): void {
  const s = stack;
  if (s === undefined) return;
  for (const pid of [...s.pids.values(), s.child.pid ?? -1]) {
    try {
      if (pid > 0) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** `.local/demo-key.json` as it was before the stack's seed wrote this run's key there. */
function restoreDemoKeyFile(): void {
  if (demoKeyBefore === undefined || demoKeyOfRun === undefined) return;
  try {
    const now = existsSync(DEMO_KEY_FILE) ? readFileSync(DEMO_KEY_FILE, 'utf8') : null;
    if (now === null || !now.includes(demoKeyOfRun)) return; // someone else's since: leave it
    if (demoKeyBefore === null) {
      unlinkSync(DEMO_KEY_FILE);
      // `.local/` itself, when this run made it and left nothing else there.
      if (!localDirBefore && readdirSync(dirname(DEMO_KEY_FILE)).length === 0)
        rmdirSync(dirname(DEMO_KEY_FILE));
    } else writeFileSync(DEMO_KEY_FILE, demoKeyBefore, { mode: 0o600 });
    demoKeyOfRun = undefined;
  } catch (err) {
    log(`could not restore ${DEMO_KEY_FILE}: ${String(err)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Load

interface Second {
  /** Answers by HTTP status, completed in this second of the measured window. */
  readonly statuses: Record<string, number>;
  /** Latencies (ms) of the 200 answers of this second; empty in wrk mode. */
  readonly latencies: number[];
  errors: number;
}

interface LoadResult {
  readonly seconds: Second[];
  /** Latency percentiles (ms) of the 200 answers over the whole window. */
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** Connection errors and timeouts, by kind. */
  readonly errors: Record<string, number>;
  readonly firstError: string;
}

/** A closed loop of `clients` in this process (undici pool, one connection per client). */
async function nodeLoad(origin: string, keys: readonly string[], seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, {
    connections: settings.clients,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const errors: Record<string, number> = {};
  let firstError = '';
  let next = 0;
  const call = async () => {
    const key = keys[next++ % keys.length] ?? '';
    const res = await pool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: BODY,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 && firstError === '')
      firstError = `HTTP ${res.statusCode}: ${text.slice(0, 300)}`;
    return res.statusCode;
  };
  try {
    if (settings.warmupSeconds > 0) {
      const until = performance.now() + settings.warmupSeconds * 1000;
      await Promise.all(
        Array.from({ length: settings.clients }, async () => {
          while (performance.now() < until) await call().catch(() => undefined);
        }),
      );
    }
    const out: Second[] = Array.from({ length: seconds }, () => ({ statuses: {}, latencies: [], errors: 0 }));
    const start = performance.now();
    const end = start + seconds * 1000;
    await Promise.all(
      Array.from({ length: settings.clients }, async () => {
        while (performance.now() < end) {
          const at = performance.now();
          try {
            const status = await call();
            const done = performance.now();
            const second = out[Math.floor((done - start) / 1000)];
            if (second === undefined) continue; // finished after the window
            second.statuses[status] = (second.statuses[status] ?? 0) + 1;
            if (status === 200) second.latencies.push(done - at);
          } catch (err) {
            const kind = (err as { code?: string }).code ?? (err as Error).name ?? 'error';
            errors[kind] = (errors[kind] ?? 0) + 1;
            firstError ||= String(err);
            const second = out[Math.floor((performance.now() - start) / 1000)];
            if (second !== undefined) second.errors++;
          }
        }
      }),
    );
    const all = new Float64Array(out.reduce((sum, s) => sum + s.latencies.length, 0));
    let at = 0;
    for (const s of out) for (const ms of s.latencies) all[at++] = ms;
    all.sort();
    return {
      seconds: out,
      p50: percentileOfSorted(all, 0.5),
      p90: percentileOfSorted(all, 0.9),
      p99: percentileOfSorted(all, 0.99),
      max: all.length === 0 ? Number.NaN : (all[all.length - 1] ?? Number.NaN),
      errors,
      firstError,
    };
  } finally {
    await pool.close().catch(() => undefined);
  }
}

interface WrkOut {
  readonly seconds: Record<string, Record<string, number>>;
  readonly errors: Record<string, number>;
  readonly latency_us: { p50: number; p90: number; p99: number; max: number };
}

async function runWrk(origin: string, keysFile: string, seconds: number, jsonOut: string): Promise<WrkOut> {
  const child = spawn(
    'wrk',
    [
      '-t1',
      `-c${settings.clients}`,
      `-d${seconds}s`,
      '--timeout',
      '30s',
      '-s',
      join(ROOT, 'bench', 'soak-wrk.lua'),
      `${origin}/v1/chat/completions`,
    ],
    {
      env: { ...env, SOAK_BODY: BODY, SOAK_KEYS_FILE: keysFile, SOAK_JSON_OUT: jsonOut },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const owned = own('wrk', child);
  const output = createWriteStream(join(OUT, 'wrk.txt'), { flags: 'a' });
  child.stdout?.pipe(output);
  child.stderr?.pipe(output);
  const [code] = (await once(child, 'exit')) as [number | null];
  await owned.stop();
  if (code !== 0) throw new Error(`wrk exited with ${code} (see ${relative(ROOT, OUT)}/wrk.txt)`);
  return JSON.parse(readFileSync(jsonOut, 'utf8')) as WrkOut;
}

/** wrk, one thread: per-second answers by status from its Lua script; latency over the whole run. */
async function wrkLoad(origin: string, keys: readonly string[], seconds: number): Promise<LoadResult> {
  const keysFile = join(OUT, 'keys.txt');
  writeFileSync(keysFile, `${keys.join('\n')}\n`, { mode: 0o600 });
  try {
    if (settings.warmupSeconds > 0)
      await runWrk(origin, keysFile, settings.warmupSeconds, join(OUT, 'wrk-warmup.json'));
    const result = await runWrk(origin, keysFile, seconds, join(OUT, 'wrk-soak.json'));
    // Whole seconds only: the first and the last second of wrk's run are partial.
    const stamps = Object.keys(result.seconds).map(Number);
    const first = Math.min(...stamps) + 1;
    const last = Math.max(...stamps) - 1;
    const out: Second[] = Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => ({
      statuses: { ...(result.seconds[String(first + i)] ?? {}) },
      latencies: [],
      errors: 0,
    }));
    const us = (x: number) => x / 1000;
    const errors = Object.fromEntries(Object.entries(result.errors).filter(([, n]) => n > 0));
    return {
      seconds: out,
      p50: us(result.latency_us.p50),
      p90: us(result.latency_us.p90),
      p99: us(result.latency_us.p99),
      max: us(result.latency_us.max),
      errors,
      firstError: '',
    };
  } finally {
    rmSync(keysFile, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Verdicts and the results file

interface Verdicts {
  readonly silentWindows: { from: number; to: number }[];
  readonly windowS: number;
  readonly firstRps: number;
  readonly lastRps: number;
  readonly ratio: number;
  readonly nonOk: Record<string, number>;
  readonly refusals: number;
}

const ok = (s: Second) => s.statuses['200'] ?? 0;

function verdicts(load: LoadResult): Verdicts {
  const perSecond = load.seconds.map(ok);
  const silentWindows: { from: number; to: number }[] = [];
  for (let i = 0; i + ACCEPT.silentWindowS <= perSecond.length; i++) {
    const window = perSecond.slice(i, i + ACCEPT.silentWindowS);
    if (window.every((n) => n === 0)) {
      const last = silentWindows.at(-1);
      if (last !== undefined && last.to >= i) last.to = i + ACCEPT.silentWindowS;
      else silentWindows.push({ from: i, to: i + ACCEPT.silentWindowS });
    }
  }
  // "Minute": 60 s, or half of a shorter run (a smoke test), so the two never overlap.
  const windowS = Math.max(1, Math.min(60, Math.floor(perSecond.length / 2)));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const firstRps = mean(perSecond.slice(0, windowS));
  const lastRps = mean(perSecond.slice(-windowS));
  const nonOk: Record<string, number> = {};
  for (const s of load.seconds)
    for (const [status, n] of Object.entries(s.statuses))
      if (status !== '200') nonOk[status] = (nonOk[status] ?? 0) + n;
  const refusals = (nonOk['503'] ?? 0) + (nonOk['429'] ?? 0);
  return { silentWindows, windowS, firstRps, lastRps, ratio: lastRps / firstRps, nonOk, refusals };
}

interface StoreFacts {
  readonly atLoadEnd: StoreSnapshot | null;
  readonly afterClose: StoreSnapshot | null;
  readonly sql: LedgerVerdict | undefined;
  readonly script: { readonly line: string; readonly exitCode: number | null } | undefined;
  readonly apiLoopDelay: LoopDelay | null;
  readonly workerLoopDelay: LoopDelay | null;
}

interface Report {
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly load: LoadResult;
  readonly v: Verdicts;
  readonly store: StoreFacts;
  /** CPU cores busy over the measured window, per process. */
  readonly cpu: Record<string, number>;
  readonly keys: number;
  /** 1-minute load average when the measured window began and ended (other work on the machine). */
  readonly loadAverage: readonly [number, number];
}

const f1 = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const met = (b: boolean) => (b ? '**met**' : '**NOT met**');

function render(r: Report): string {
  const { load, v, store } = r;
  const total = load.seconds.reduce((sum, s) => sum + ok(s), 0);
  const minute = v.windowS === 60 ? 'minute' : `${v.windowS} s (half of this short run)`;
  const ledgerOk =
    store.sql !== undefined &&
    store.sql.differences.length === 0 &&
    (store.script === undefined || store.script.exitCode === 0);
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`;
  const knobs = Object.entries(env)
    .filter(([name]) => /^(SOAK_[A-Z_]+|STORES_CPUS)$/.test(name))
    .map(([name, value]) => `${name}=${value} `)
    .join('');
  const lines = [
    '# Soak: the local stack on its SQLite store under steady load',
    '',
    `Produced by \`${knobs}npm run bench:soak\` (${(r.elapsedS / 60).toFixed(1)} min), started ${r.startedAt}. Machine: ${machine}; Node ${process.version}. Measured tree: ${workTreeLabel(ROOT)}.`,
    '',
    ...(load.seconds.length < 300
      ? [
          `- **Shortened run** (${load.seconds.length} s measured; the acceptance check is defined on 300 s, SOAK_SECONDS unset): a smoke test.`,
        ]
      : []),
    `- **Store: SQLite (node:sqlite, WAL) file \`${relative(ROOT, SQLITE_PATH)}\`, fresh at the start, shared by the stack's api and worker (the store \`npm start\` uses: \`SQLITE_PATH\` set, \`MONGO_URL\` unset), on the host's disk; nothing pruned.**`,
    `- Stack: \`node infra/local-stack.ts\` (api + one worker), LOG_LEVEL=${settings.logLevel}; ${settings.services === 'bench' ? "Redis (append-only file, the stack's settings) and s3rver started fresh by the soak and handed to the stack (REDIS_URL, S3_ENDPOINT)" : 'Redis and s3rver started by the stack itself in `.local/`, as under `npm start`'}. Nothing pinned to a CPU${settings.storesCpus ? ` but Redis (CPU ${settings.storesCpus})` : ''}.`,
    `- Machine load (1-min load average at the start → end of the measured window, on ${os.cpus().length} CPUs; the soak's own processes' CPU is under "The store after the run"): ${r.loadAverage[0].toFixed(1)} → ${r.loadAverage[1].toFixed(1)}.`,
    `- Upstream: model \`${settings.model}\`, the built-in demo provider: it computes the answer in the api's process with no simulated delay for chat (there is no delay knob for chat; \`DEMO_VIDEO_RENDER_MS\` is for video only), so this is the "0 ms upstream" case.`,
    `- Load: ${settings.clients} clients in a closed loop (${settings.loadgen === 'node' ? 'this script, undici pool, one connection each' : 'wrk 4.1.0, one thread'}), non-streaming \`POST /v1/chat/completions\`, ${r.keys} keys (${settings.accounts} accounts × ${settings.keysPerAccount}, rate limit ${settings.rateLimit} a minute each, funded by top-ups), ${settings.warmupSeconds} s of warm-up, then ${load.seconds.length} s measured.`,
    '',
    '## Acceptance check',
    '',
    '| check | measured | verdict |',
    '|---|---|---|',
    `| no ${ACCEPT.silentWindowS}-second window without a 200 answer | ${v.silentWindows.length === 0 ? 'none' : v.silentWindows.map((w) => `s ${w.from}-${w.to}`).join(', ')} | ${met(v.silentWindows.length === 0)} |`,
    `| last ${minute}'s throughput ≥ ${ACCEPT.lastOverFirst} × the first's | ${f1(v.lastRps)} / ${f1(v.firstRps)} answers/s = ${f2(v.ratio)} | ${met(v.ratio >= ACCEPT.lastOverFirst)} |`,
    `| no backpressure refusals (503, 429) | non-200 answers by status: ${
      Object.keys(v.nonOk).length === 0
        ? 'none'
        : Object.entries(v.nonOk)
            .map(([s, n]) => `${s}: ${n}`)
            .join(', ')
    }; connection errors: ${Object.keys(load.errors).length === 0 ? 'none' : JSON.stringify(load.errors)} | ${met(v.refusals === 0)} |`,
    `| p99 latency ≤ ${ACCEPT.p99Ms} ms | p50 ${f2(load.p50)} ms, p90 ${f2(load.p90)} ms, p99 ${f2(load.p99)} ms, max ${f1(load.max)} ms (200 answers) | ${met(load.p99 <= ACCEPT.p99Ms)} |`,
    `| ledger check after the stack stopped | \`node scripts/ledger-check.ts\`: ${store.script === undefined ? 'not run' : `${store.script.line || '(no verdict line)'} (exit ${store.script.exitCode})`}; read-only SQL on the file: ${describeVerdict(store.sql)} | ${met(ledgerOk)} |`,
    '',
    `${total} answers with 200 in the measured window, ${f1(total / Math.max(1, load.seconds.length))} a second on average.${load.firstError === '' ? '' : ` First error: ${load.firstError.replace(/\s+/g, ' ').slice(0, 300)}`}`,
    '',
    '## The store after the run',
    '',
    '| when | file size (db + wal) | ledger rows | wallets | accounts |',
    '|---|---|---|---|---|',
    ...(
      [
        ['load ended (stack running)', store.atLoadEnd],
        ['stack stopped (queued charges written, WAL checkpointed)', store.afterClose],
      ] as const
    ).map(
      ([when, s]) =>
        `| ${when} | ${formatSize(s?.size)} | ${s?.ledgerRows ?? 'n/a'} | ${s?.wallets ?? 'n/a'} | ${s?.accounts ?? 'n/a'} |`,
    ),
    '',
    `Event-loop delay over the measured window (\`perf_hooks.monitorEventLoopDelay\` through \`bench/loop-delay-preload.ts\`, loaded with NODE_OPTIONS=--import, the processes unchanged; beyond its 10 ms timer; p50/p99: medians over the seconds): api ${formatLoopDelay(store.apiLoopDelay)}; worker ${formatLoopDelay(store.workerLoopDelay)}.`,
    '',
    `CPU over the measured window (cores busy, from /proc): ${Object.entries(r.cpu)
      .map(([name, cores]) => `${name} ${f2(cores)}`)
      .join(
        ', ',
      )}${total > 0 && r.cpu.api !== undefined ? `; api ${f2((r.cpu.api * load.seconds.length * 1000) / total)} CPU-ms per answer (SQLite included)` : ''}.`,
    '',
    '## Answers per 10 seconds',
    '',
    `| seconds | 200 answers/s | p50 ms | p99 ms | non-200 | connection errors |`,
    '|---|---|---|---|---|---|',
  ];
  for (let from = 0; from < load.seconds.length; from += 10) {
    const part = load.seconds.slice(from, from + 10);
    const lat = part.flatMap((s) => s.latencies).sort((a, b) => a - b);
    const non = part.reduce(
      (sum, s) => sum + Object.entries(s.statuses).reduce((t, [st, n]) => t + (st === '200' ? 0 : n), 0),
      0,
    );
    lines.push(
      `| ${from}-${from + part.length} | ${f1(part.reduce((sum, s) => sum + ok(s), 0) / part.length)} | ${lat.length > 0 ? f2(percentileOfSorted(lat, 0.5)) : 'n/a'} | ${lat.length > 0 ? f2(percentileOfSorted(lat, 0.99)) : 'n/a'} | ${non} | ${part.reduce((sum, s) => sum + s.errors, 0)} |`,
    );
  }
  lines.push(
    '',
    `Per-second figures: \`${relative(ROOT, join(OUT, 'seconds.json'))}\` (git-ignored), with the stack's log.${settings.loadgen === 'wrk' ? ' (wrk mode: no per-second latencies; the percentiles above are over the whole run.)' : ''}`,
    '',
    '## How to run',
    '',
    "`npm run bench:soak` (needs `redis-server`, as `npm start`; `wrk` only with SOAK_LOADGEN=wrk). Knobs (env): `SOAK_SECONDS` (300: measured seconds), `SOAK_WARMUP_SECONDS` (5, not counted), `SOAK_CLIENTS` (50), `SOAK_ACCOUNTS` (8 × 25 keys at 3000 a minute: room for 10,000 requests a second), `SOAK_MODEL` (demo/chat), `SOAK_LOADGEN` (node: undici in this process, per-second latencies; wrk: cheaper on the CPU, latency over the whole run only), `SOAK_SERVICES` (bench: fresh Redis and s3rver for the stack; stack: the stack starts its own in `.local/`, as `npm start`), `SOAK_LOG_LEVEL` (warn; `info`, the stack's default, logs a line per request through the stack's output), `SOAK_LOOP_DELAY` (0 leaves the event-loop delay preload out), `SOAK_KEEP_STORE` (1 keeps the SQLite file in the results folder), `STORES_CPUS` (pins the soak's Redis), `SOAK_TIME_LIMIT_S`. Thresholds: no 5 s without answers, last minute ≥ 0.9 × first, no 503/429, p99 ≤ 50 ms, ledger consistent.",
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function runLedgerCheckScript(redisUrl: string): Promise<{ line: string; exitCode: number | null }> {
  const child = spawn(process.execPath, ['scripts/ledger-check.ts'], {
    cwd: ROOT,
    env: { PATH: env.PATH, HOME: env.HOME, SQLITE_PATH, REDIS_URL: redisUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  writeFileSync(join(OUT, 'ledger-check.txt'), out);
  const line =
    out.split('\n').find((l) => l.startsWith('ledger check')) ?? out.trim().split('\n').at(-1) ?? '';
  return { line: line.trim(), exitCode: code };
}

function cpuNow(pids: Map<string, number>): Record<string, number> {
  const self = process.cpuUsage();
  const out: Record<string, number> = {};
  for (const [name, pid] of pids) out[name] = cpuSeconds(pid);
  if (settings.loadgen === 'node') out['soak script (load generator)'] = (self.user + self.system) / 1e6;
  return out;
}

/** Runs the soak; true when every check of the acceptance list is met. */
async function main(): Promise<boolean> {
  const begun = Date.now();
  mkdirSync(OUT, { recursive: true });
  log(`results: ${relative(ROOT, OUT)}; SQLite file ${relative(ROOT, SQLITE_PATH)}`);
  if (settings.loadgen === 'wrk' && !haveWrk)
    throw new Error('SOAK_LOADGEN=wrk needs wrk (apt-get install -y wrk)');

  let redisUrl: string | undefined;
  let s3Env: Record<string, string> = {};
  if (settings.services === 'bench') {
    mkdirSync(join(OUT, 'redis'), { recursive: true });
    const redis = await startRedisServer('redis-server', { detached: true, dataDir: join(OUT, 'redis') });
    const owned = own('redis-server (soak)', redis.process.child);
    services.push(owned);
    pinRunning(owned.pid, settings.storesCpus);
    redisUrl = redis.url;
    const s3 = await startS3Server(join(OUT, 's3'));
    closers.push(() => s3.stop().catch(() => undefined));
    s3Env = {
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    };
  }
  demoKeyBefore = existsSync(DEMO_KEY_FILE) ? readFileSync(DEMO_KEY_FILE, 'utf8') : null;
  localDirBefore = existsSync(dirname(DEMO_KEY_FILE));
  const s = await startStack(redisUrl, s3Env);
  log(`stack ready at ${s.origin} (pids ${JSON.stringify(Object.fromEntries(s.pids))})`);
  if (settings.services === 'stack' && settings.storesCpus && s.pids.has('redis-server'))
    pinRunning(s.pids.get('redis-server') ?? -1, settings.storesCpus);

  const admin = adminClient(s.origin, s.adminToken);
  const keys = (
    await Promise.all(
      Array.from({ length: settings.accounts }, (_, i) =>
        accountWithKeys(admin, `soak-${i}`, settings.keysPerAccount),
      ),
    )
  ).flat();
  log(
    `${keys.length} keys; ${settings.warmupSeconds} s warm-up, then ${settings.seconds} s of ${settings.clients} clients (${settings.loadgen})`,
  );

  const cpuPids = new Map(s.pids);
  if (settings.services === 'bench' && services[0] !== undefined)
    cpuPids.set('redis-server', services[0].pid);
  let cpuFrom: Record<string, number> = {};
  let fromMs = 0;
  let loadFrom = os.loadavg()[0] ?? 0;
  const cpuTimer = setTimeout(() => {
    cpuFrom = cpuNow(cpuPids);
    fromMs = Date.now();
    loadFrom = os.loadavg()[0] ?? 0;
  }, settings.warmupSeconds * 1000);
  const load =
    settings.loadgen === 'wrk'
      ? await wrkLoad(s.origin, keys, settings.seconds)
      : await nodeLoad(s.origin, keys, settings.seconds);
  clearTimeout(cpuTimer);
  const toMs = Date.now();
  const cpuTo = cpuNow(cpuPids);
  const loadAverage = [loadFrom, os.loadavg()[0] ?? 0] as const;
  const cpu: Record<string, number> = {};
  const windowS = (toMs - (fromMs || toMs - settings.seconds * 1000)) / 1000;
  for (const name of Object.keys(cpuTo)) cpu[name] = ((cpuTo[name] ?? 0) - (cpuFrom[name] ?? 0)) / windowS;
  writeFileSync(
    join(OUT, 'seconds.json'),
    JSON.stringify(
      load.seconds.map((x, i) => ({
        second: i,
        statuses: x.statuses,
        errors: x.errors,
        p50: percentileOfSorted(
          [...x.latencies].sort((a, b) => a - b),
          0.5,
        ),
        p99: percentileOfSorted(
          [...x.latencies].sort((a, b) => a - b),
          0.99,
        ),
      })),
    ),
  );
  const v = verdicts(load);
  log(
    `load done: ${load.seconds.reduce((sum, x) => sum + ok(x), 0)} answers with 200; last/first ${v.ratio.toFixed(2)}; p50 ${f2(load.p50)} ms, p99 ${f2(load.p99)} ms; non-200 ${JSON.stringify(v.nonOk)}`,
  );

  const atLoadEnd = snapshotStore(SQLITE_PATH);
  log('stopping the stack (SIGINT)');
  await stopStack();
  restoreDemoKeyFile();
  const afterClose = snapshotStore(SQLITE_PATH);
  let sql: LedgerVerdict | undefined;
  try {
    sql = checkLedger(SQLITE_PATH);
  } catch (err) {
    log(`read-only ledger check failed: ${String(err)}`);
  }
  const script = redisUrl === undefined ? undefined : await runLedgerCheckScript(redisUrl);
  log(
    `ledger check: script ${script?.line ?? 'not run (the stack owned Redis)'}; SQL ${describeVerdict(sql)}`,
  );
  const store: StoreFacts = {
    atLoadEnd,
    afterClose,
    sql,
    script,
    apiLoopDelay: loopDelayOf(LOOP_DELAY_DIR, 'api', fromMs, toMs),
    workerLoopDelay: loopDelayOf(LOOP_DELAY_DIR, 'worker', fromMs, toMs),
  };
  const report: Report = {
    startedAt: new Date(begun).toISOString(),
    elapsedS: (Date.now() - begun) / 1000,
    load,
    v,
    store,
    cpu,
    keys: keys.length,
    loadAverage,
  };
  const file = join(ROOT, 'bench', 'SOAK-RESULTS.md');
  writeKeepingAnalysis(file, render(report));
  log(`wrote ${relative(ROOT, file)}`);
  if (!settings.keepStore)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${SQLITE_PATH}${suffix}`, { force: true });
  rmSync(join(OUT, 's3'), { recursive: true, force: true });
  const allMet =
    v.silentWindows.length === 0 &&
    v.ratio >= ACCEPT.lastOverFirst &&
    v.refusals === 0 &&
    load.p99 <= ACCEPT.p99Ms &&
    sql !== undefined &&
    sql.differences.length === 0 &&
    (script === undefined || script.exitCode === 0);
  log(allMet ? 'acceptance check: every check met' : 'acceptance check: NOT every check met (see the file)');
  return allMet;
}

async function cleanUp(): Promise<void> {
  await stopStack().catch((err: unknown) => log(`stopping the stack: ${String(err)}`));
  restoreDemoKeyFile();
  for (const owned of services.splice(0).reverse()) await owned.stop().catch(() => undefined);
  for (const close of closers.splice(0)) await close();
  // The soak's Redis append-only file: scratch, of no use once the run is over.
  if (settings.services === 'bench') rmSync(join(OUT, 'redis'), { recursive: true, force: true });
}

// Whatever happens, nothing this script started outlives it: the stack gets SIGINT (it then stops
// what it started, even with this script gone), the services it owns SIGKILL.
process.on('exit', () => {
  const s = stack;
  if (s !== undefined && isRunning(s.child)) s.child.kill('SIGINT');
  for (const owned of services) owned.killNow();
});
let stopping = false;
const stopAndExit = async (reason: string, code: number) => {
  if (stopping) {
    log(`${reason} again: killing everything now`);
    killStackNow();
    for (const owned of services) owned.killNow();
    process.exit(1);
  }
  stopping = true;
  log(`${reason}: stopping everything it started`);
  await cleanUp();
  process.exit(code);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => void stopAndExit(signal, 130));
setTimeout(() => void stopAndExit(`time limit of ${timeLimitS} s reached`, 1), timeLimitS * 1000).unref();

main().then(
  (allMet) => void stopAndExit('finished', allMet ? 0 : 1),
  (err: unknown) => {
    process.stderr.write(
      `[soak] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    void stopAndExit('failure', 1);
  },
);
