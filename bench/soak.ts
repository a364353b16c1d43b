/**
 * `npm run bench:soak`: the durable store's acceptance check on the local stack of `npm start`.
 *
 * Starts `node infra/local-stack.ts` (the api and one worker on one SQLite file, its own Redis and
 * s3rver) with `LOCAL_DATA_DIR` in this run's scratch folder (so nothing of a developer's `.local/`
 * is touched), a free `PORT` and its own `ADMIN_TOKEN`; makes funded accounts and keys through the
 * operator API (rate limit 3000 a minute each, enough keys that the per-key limit never refuses);
 * then 50 clients in a closed loop send `POST /v1/chat/completions` for `demo/chat` (the built-in
 * demo provider: it answers in process, no simulated delay) for SOAK_SECONDS. It records the answers
 * per second by status and their latencies, stops the stack with SIGINT, checks every wallet against
 * its ledger on the closed file (read-only SQL) and writes bench/SOAK-RESULTS.md: windows of 5 s
 * without answers (must be none), last minute's throughput over the first's (≥ 0.9), non-200 answers
 * by status (no 503/429), p99 latency (≤ 50 ms), the ledger verdict, and the store file's size.
 *
 * Everything started is stopped at the end, on failure, on Ctrl-C and at the time limit (the stack
 * by its own process group: it then stops what it started).
 * Knobs (env): see "How to run" in bench/SOAK-RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { freePort } from '../infra/local-services/free-port.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { writeKeepingAnalysis } from './kept-analysis.ts';
import { type Owned, runOwning, startProcess, waitForHttp } from './processes.ts';
import { commandLabel, machineLabel, workTreeLabel } from './run-labels.ts';
import { percentileOfSorted } from './stats.ts';
import { describeVerdict, formatSize, type StoreAcrossClose, storeAcrossClose } from './store-file.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) =>
  env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);

const settings = {
  seconds: num('SOAK_SECONDS', 300),
  warmupSeconds: num('SOAK_WARMUP_SECONDS', 5),
  clients: num('SOAK_CLIENTS', 50),
  accounts: num('SOAK_ACCOUNTS', 8),
  keysPerAccount: 25,
  rateLimit: 3000,
  model: env.SOAK_MODEL ?? 'demo/chat',
  logLevel: env.SOAK_LOG_LEVEL ?? 'warn',
  keepStore: env.SOAK_KEEP_STORE === '1',
};
const timeLimitS = num('SOAK_TIME_LIMIT_S', settings.seconds + settings.warmupSeconds + 240);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const OUT = join(ROOT, 'bench', 'results', `soak-${stamp}`);
/** The stack's data folder (LOCAL_DATA_DIR): its SQLite file, Redis's append-only file, s3rver's. */
const DATA = join(OUT, 'stack');
const SQLITE_PATH = join(DATA, 'gateway.db');
const BODY = JSON.stringify({
  model: settings.model,
  messages: [{ role: 'user', content: 'Say hello to the soak test.' }],
});
const log = (line: string) => process.stdout.write(`[soak] ${line}\n`);

/** The thresholds of the acceptance check. */
const ACCEPT = { silentWindowS: 5, lastOverFirst: 0.9, p99Ms: 50 } as const;

// ---------------------------------------------------------------------------------------------
// The stack

interface Stack {
  readonly owned: Owned;
  readonly origin: string;
  readonly adminToken: string;
}

/**
 * The stack with its data in DATA, ready. It stops on SIGTERM as on Ctrl-C: its apps, then its
 * services (./processes.ts stops it by its own process group, and SIGKILL after STACK_STOP_MS).
 */
async function startStack(): Promise<Stack> {
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const stackEnv: NodeJS.ProcessEnv = { ...env };
  // The store of `npm start` when MONGO_URL is unset (the SQLite file), and services of its own.
  for (const name of ['MONGO_URL', 'MONGO_DB', 'REDIS_URL', 'S3_ENDPOINT', 'SQLITE_PATH'])
    delete stackEnv[name];
  Object.assign(stackEnv, {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOCAL_DATA_DIR: DATA,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: settings.logLevel,
  });
  const owned = startProcess({
    name: 'local stack',
    command: process.execPath,
    args: ['infra/local-stack.ts'],
    cwd: ROOT,
    env: stackEnv,
    logFile: join(OUT, 'stack.log'),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/readyz`, owned, (status) => status === 200, 90_000);
  return { owned, origin, adminToken };
}

/** The stack's apps close gracefully (up to 15 s), then its services: well within this. */
const STACK_STOP_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// Load

interface Second {
  /** Answers by HTTP status, completed in this second of the measured window. */
  readonly statuses: Record<string, number>;
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

/**
 * A closed loop of `clients` in this process (undici pool, one connection per client), for the
 * warm-up and then `seconds` counted: each answer in the second it completed in.
 */
async function nodeLoad(origin: string, keys: readonly string[], seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, {
    connections: settings.clients,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const out: Second[] = Array.from({ length: seconds }, () => ({ statuses: {}, errors: 0 }));
  /** Latencies (ms) of the 200 answers of the counted seconds. */
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let firstError = '';
  let next = 0;
  const start = performance.now() + settings.warmupSeconds * 1000;
  const second = (at: number) => (at < start ? undefined : out[Math.floor((at - start) / 1000)]);
  const call = async () => {
    const at = performance.now();
    const headers = {
      authorization: `Bearer ${keys[next++ % keys.length]}`,
      'content-type': 'application/json',
    };
    try {
      const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body: BODY });
      const text = await res.body.text();
      if (res.statusCode !== 200) firstError ||= `HTTP ${res.statusCode}: ${text.slice(0, 300)}`;
      const s = second(performance.now());
      if (s === undefined) return;
      s.statuses[res.statusCode] = (s.statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === 200) latencies.push(performance.now() - at);
    } catch (err) {
      const s = second(performance.now());
      if (s === undefined) return;
      const kind = (err as { code?: string }).code ?? (err as Error).name ?? 'error';
      errors[kind] = (errors[kind] ?? 0) + 1;
      firstError ||= String(err);
      s.errors++;
    }
  };
  const end = start + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: settings.clients }, async () => {
        while (performance.now() < end) await call();
      }),
    );
  } finally {
    await pool.close().catch(() => undefined);
  }
  const all = Float64Array.from(latencies).sort();
  const p = (q: number) => percentileOfSorted(all, q);
  return {
    seconds: out,
    p50: p(0.5),
    p90: p(0.9),
    p99: p(0.99),
    max: all.at(-1) ?? Number.NaN,
    errors,
    firstError,
  };
}

// ---------------------------------------------------------------------------------------------
// Verdicts and the results file

const ok = (s: Second) => s.statuses['200'] ?? 0;

function verdicts(load: LoadResult) {
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

interface Report {
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly load: LoadResult;
  readonly v: ReturnType<typeof verdicts>;
  readonly store: StoreAcrossClose;
  readonly keys: number;
  /** 1-minute load average when the measured window began and ended (other work on the machine). */
  readonly loadAverage: readonly [number, number];
}

const f1 = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const met = (b: boolean) => (b ? '**met**' : '**NOT met**');
const ledgerOk = (store: StoreAcrossClose) =>
  store.ledgerCheck !== undefined && store.ledgerCheck.differences.length === 0;

function acceptance(r: Report): string[] {
  const { load, v, store } = r;
  const minute = v.windowS === 60 ? 'minute' : `${v.windowS} s (half of this short run)`;
  const nonOk = Object.entries(v.nonOk).map(([status, n]) => `${status}: ${n}`);
  const errors = Object.keys(load.errors).length === 0 ? 'none' : JSON.stringify(load.errors);
  return [
    '## Acceptance check',
    '',
    '| check | measured | verdict |',
    '|---|---|---|',
    `| no ${ACCEPT.silentWindowS}-second window without a 200 answer | ${v.silentWindows.length === 0 ? 'none' : v.silentWindows.map((w) => `s ${w.from}-${w.to}`).join(', ')} | ${met(v.silentWindows.length === 0)} |`,
    `| last ${minute}'s throughput ≥ ${ACCEPT.lastOverFirst} × the first's | ${f1(v.lastRps)} / ${f1(v.firstRps)} answers/s = ${f2(v.ratio)} | ${met(v.ratio >= ACCEPT.lastOverFirst)} |`,
    `| no backpressure refusals (503, 429) | non-200 answers by status: ${nonOk.length === 0 ? 'none' : nonOk.join(', ')}; connection errors: ${errors} | ${met(v.refusals === 0)} |`,
    `| p99 latency ≤ ${ACCEPT.p99Ms} ms | p50 ${f2(load.p50)} ms, p90 ${f2(load.p90)} ms, p99 ${f2(load.p99)} ms, max ${f1(load.max)} ms (200 answers) | ${met(load.p99 <= ACCEPT.p99Ms)} |`,
    `| every wallet equals its ledger once the stack stopped (read-only SQL on the file) | ${describeVerdict(store.ledgerCheck)} | ${met(ledgerOk(store))} |`,
    '',
  ];
}

function storeAfter(store: StoreAcrossClose): string[] {
  const rows = [
    ['load ended (stack running)', store.atLoadEnd],
    ['stack stopped (queued charges written, WAL checkpointed)', store.afterClose],
  ] as const;
  const row = ([when, s]: (typeof rows)[number]) =>
    `| ${when} | ${formatSize(s?.size)} | ${s?.ledgerRows ?? 'n/a'} | ${s?.wallets ?? 'n/a'} |`;
  return [
    '## The store after the run',
    '',
    '| when | file size (db + wal) | ledger rows | wallets |',
    '|---|---|---|---|',
    ...rows.map(row),
    '',
  ];
}

function render(r: Report): string {
  const { load } = r;
  const total = load.seconds.reduce((sum, s) => sum + ok(s), 0);
  return [
    '# Soak: the local stack on its SQLite store under steady load',
    '',
    `Produced by \`${commandLabel('npm run bench:soak', /^SOAK_[A-Z_]+$/)}\` (${(r.elapsedS / 60).toFixed(1)} min), started ${r.startedAt}. Machine: ${machineLabel()}. Measured tree: ${workTreeLabel(ROOT)}.`,
    '',
    ...(load.seconds.length < 300
      ? [
          `- **Shortened run** (${load.seconds.length} s measured; the acceptance check is defined on 300 s): a smoke test.`,
        ]
      : []),
    `- Stack: \`node infra/local-stack.ts\` (api + one worker, on one fresh SQLite file, with its own Redis and s3rver, as \`npm start\`), its data in \`${relative(ROOT, DATA)}\` (\`LOCAL_DATA_DIR\`), LOG_LEVEL=${settings.logLevel}; nothing pinned to a CPU.`,
    `- Machine load (1-min load average, start → end of the measured window): ${r.loadAverage[0].toFixed(1)} → ${r.loadAverage[1].toFixed(1)}.`,
    `- Upstream: model \`${settings.model}\`, the built-in demo provider, answered in the api's process with no simulated delay (the "0 ms upstream" case).`,
    `- Load: ${settings.clients} clients in a closed loop (this script, undici pool, one connection each), non-streaming \`POST /v1/chat/completions\`, ${r.keys} keys (${settings.accounts} accounts × ${settings.keysPerAccount}, ${settings.rateLimit} a minute each), ${settings.warmupSeconds} s of warm-up, then ${load.seconds.length} s measured.`,
    '',
    ...acceptance(r),
    `${total} answers with 200 in the measured window, ${f1(total / Math.max(1, load.seconds.length))} a second on average.${load.firstError === '' ? '' : ` First error: ${load.firstError.replace(/\s+/g, ' ').slice(0, 300)}`}`,
    '',
    ...storeAfter(r.store),
    `The stack's log: \`${relative(ROOT, join(OUT, 'stack.log'))}\` (git-ignored).`,
    '',
    '## How to run',
    '',
    "`npm run bench:soak` (needs `redis-server`, as `npm start`). Knobs (env): `SOAK_SECONDS` (300: measured seconds), `SOAK_WARMUP_SECONDS` (5, not counted), `SOAK_CLIENTS` (50), `SOAK_ACCOUNTS` (8 × 25 keys at 3000 a minute: room for 10,000 requests a second), `SOAK_MODEL` (demo/chat), `SOAK_LOG_LEVEL` (warn; `info` logs a line per request), `SOAK_KEEP_STORE` (1 keeps the stack's data folder), `SOAK_TIME_LIMIT_S`.",
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** The load, and the 1-minute load average when its measured window began and ended. */
async function measuredLoad(s: Stack, keys: readonly string[]) {
  let loadFrom = os.loadavg()[0] ?? 0;
  const timer = setTimeout(() => {
    loadFrom = os.loadavg()[0] ?? 0;
  }, settings.warmupSeconds * 1000);
  const load = await nodeLoad(s.origin, keys, settings.seconds);
  clearTimeout(timer);
  return { load, loadAverage: [loadFrom, os.loadavg()[0] ?? 0] as const };
}

/** The store when the load ended, then after the stack stopped, and the ledger check on it. */
async function storeFacts(s: Stack): Promise<StoreAcrossClose> {
  log('stopping the stack');
  const store = await storeAcrossClose(SQLITE_PATH, () => s.owned.stop(STACK_STOP_MS), log);
  log(`ledger check: ${describeVerdict(store.ledgerCheck)}`);
  return store;
}

/** Runs the soak; true when every check of the acceptance list is met. */
async function main(): Promise<boolean> {
  const begun = Date.now();
  mkdirSync(OUT, { recursive: true });
  log(`results: ${relative(ROOT, OUT)}; the stack's data in ${relative(ROOT, DATA)}`);
  const s = await startStack();
  log(`stack ready at ${s.origin}`);
  const admin = adminClient(s.origin, s.adminToken);
  const accounts = Array.from({ length: settings.accounts }, (_, i) => `soak-${i}`);
  const keys = (
    await Promise.all(accounts.map((a) => accountWithKeys(admin, a, settings.keysPerAccount)))
  ).flat();
  log(
    `${keys.length} keys; ${settings.warmupSeconds} s warm-up, then ${settings.seconds} s of ${settings.clients} clients`,
  );
  const { load, loadAverage } = await measuredLoad(s, keys);
  const v = verdicts(load);
  log(
    `load done: last/first ${v.ratio.toFixed(2)}; p50 ${f2(load.p50)} ms, p99 ${f2(load.p99)} ms; non-200 ${JSON.stringify(v.nonOk)}`,
  );
  const store = await storeFacts(s);
  const report = {
    startedAt: new Date(begun).toISOString(),
    elapsedS: (Date.now() - begun) / 1000,
    load,
    v,
    store,
    keys: keys.length,
    loadAverage,
  };
  const file = join(ROOT, 'bench', 'SOAK-RESULTS.md');
  writeKeepingAnalysis(file, render(report));
  log(`wrote ${relative(ROOT, file)}`);
  if (!settings.keepStore) rmSync(DATA, { recursive: true, force: true });
  const allMet =
    v.silentWindows.length === 0 &&
    v.ratio >= ACCEPT.lastOverFirst &&
    v.refusals === 0 &&
    load.p99 <= ACCEPT.p99Ms &&
    ledgerOk(store);
  log(allMet ? 'acceptance check: every check met' : 'acceptance check: NOT every check met (see the file)');
  return allMet;
}

runOwning(main, { name: 'soak', timeLimitS, log });
