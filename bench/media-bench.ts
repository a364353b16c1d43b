/**
 * `node bench/media-bench.ts` (`npm run bench:media`; `npm run bench` runs it after the chat
 * benchmark, run-bench.ts): the media job path (issue 5, item 7).
 *
 * 1. Latency: the synchronous image request through api -> BullMQ -> worker -> S3 -> the store
 *    (POST /v1/images/generations, openai/gpt-image-1) against the same fake OpenAI provider called
 *    directly with the body the adapter sends, sequentially, 0 ms provider delay.
 * 2. Throughput (./media-pools.ts): an image pool grown to 1, 2 and 4 worker processes in one running
 *    stack at a 200 ms provider delay, closed loop at 2 x the pool's concurrency: jobs/s and
 *    scaling efficiency.
 * 3. Per-role pools (./media-pools.ts): the same with a video pool of one process beside it, loaded
 *    throughout: the image pool grows (1, then 2 processes) while the video pool stays; image
 *    jobs/s, video renders/s and the queues' waiting counts (what the KEDA triggers read).
 *
 * Every phase gets its own empty redis-server and s3rver and its own fresh SQLite file (the store
 * `npm start` uses; the api and the workers of the phase share it; nothing pruned), so phases do not
 * inherit each other's rows. After each phase the file is read read-only (./store-file.ts): size,
 * rows, and every wallet against the sum of its ledger entries. The fake provider runs in this
 * process. Everything started is stopped by pid at the end, on failure, on Ctrl-C and at the time
 * limit. Writes bench/MEDIA-RESULTS.md. Knobs (env): MEDIA_BENCH_SECONDS (15),
 * MEDIA_BENCH_LATENCY_N (300), MEDIA_BENCH_WORKERS ("1,2,4"; empty runs the latency phase alone),
 * MEDIA_BENCH_CONCURRENCY (4), MEDIA_BENCH_ROLES ("1,2": image worker processes at each step of
 * the per-role phase, growing; empty skips it), MEDIA_BENCH_TIME_LIMIT_S (300), KEEP (1 keeps the
 * scratch folders with the processes' logs and the SQLite files).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startOpenAIMediaUpstream } from '../test/fakes/openai-media-upstream.ts';
import { writeKeepingAnalysis, writeMediaBlock } from './kept-analysis.ts';
import { poolPhase } from './media-pools.ts';
import {
  type LatencyResult,
  type MediaStore,
  renderMediaResults,
  renderMediaSummary,
} from './media-report.ts';
import { jobTimings, type MediaStack, startMediaStack } from './media-stack.ts';
import { killAllNow, stopAll } from './processes.ts';
import { checkLedger, describeVerdict, formatSize, snapshotStore } from './store-file.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));
const settings = {
  seconds: num('MEDIA_BENCH_SECONDS', 15),
  warmupSeconds: 2,
  latencyN: num('MEDIA_BENCH_LATENCY_N', 300),
  // Enough for the api's and the worker's paths to be compiled (with 20, the p50 of the first
  // hundred timed requests read 1-3 ms higher than the steady state).
  latencyWarmup: 100,
  workerCounts: (env.MEDIA_BENCH_WORKERS ?? '1,2,4')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  concurrencyPerWorker: num('MEDIA_BENCH_CONCURRENCY', 4),
  roleSteps: (env.MEDIA_BENCH_ROLES ?? '1,2')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  delayMs: 200,
  timeLimitS: num('MEDIA_BENCH_TIME_LIMIT_S', 300),
};
if (settings.roleSteps.some((n, i) => i > 0 && n <= (settings.roleSteps[i - 1] ?? 0)))
  throw new Error(`MEDIA_BENCH_ROLES must grow step by step (got ${settings.roleSteps.join(',')})`);
const log = (line: string) => process.stdout.write(`[media-bench] ${line}\n`);
/**
 * s3rver keeps each object in files: on /dev/shm (memory) when the machine has it, so that the host
 * disk's latency, which varies here by a factor of 2-3 from hour to hour (a put 2.6-3.6 ms on some
 * runs, 7-8 ms on others), does not enter the numbers; a real S3 has its own storage.
 */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const TMP = mkdtempSync(join(SCRATCH, 'media-bench-'));
const LOGS = join(TMP, 'logs');
mkdirSync(LOGS, { recursive: true });
/**
 * The SQLite files, one per phase, on the host's disk like `npm start`'s `.local/gateway.db` (not in
 * /dev/shm: the store's own writes and checkpoints are part of what the job path costs).
 */
const STORES = mkdtempSync(join(os.tmpdir(), 'media-bench-store-'));

const PROMPT = 'A lighthouse on a cliff at dusk, watercolour';
const GATEWAY_BODY = JSON.stringify({ model: 'openai/gpt-image-1', prompt: PROMPT, n: 1, size: '1024x1024' });
// What shared/src/providers/openai/media/images.ts sends for that request (toImageRequestBody).
const DIRECT_BODY = JSON.stringify({
  model: 'gpt-image-1',
  prompt: PROMPT,
  n: 1,
  size: '1024x1024',
  output_format: 'png',
});

async function post(url: string, key: string, body: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text.length;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

async function latencyPhase(
  upstreamUrl: string,
  script: { always(b: unknown): void },
): Promise<LatencyResult> {
  script.always({ kind: 'slow', delayMs: 0 });
  const stack = await startMediaStack({
    root: ROOT,
    phase: 'latency',
    upstreamUrl,
    workers: 1,
    workerConcurrency: settings.concurrencyPerWorker,
    s3Dir: join(TMP, 's3-latency'),
    storeDir: join(STORES, 'latency'),
    logDir: LOGS,
    keys: 1,
    log,
  });
  try {
    const key = stack.keys[0] ?? '';
    const gw = `${stack.url}/v1/images/generations`;
    const direct = `${upstreamUrl}/images/generations`;
    for (let i = 0; i < settings.latencyWarmup; i++) {
      await post(gw, key, GATEWAY_BODY);
      await post(direct, 'sk-test-fake-key', DIRECT_BODY);
    }
    const viaGateway: number[] = [];
    const viaDirect: number[] = [];
    // Interleaved, so both see the same machine state.
    for (let i = 0; i < settings.latencyN; i++) {
      let t = performance.now();
      await post(gw, key, GATEWAY_BODY);
      viaGateway.push(performance.now() - t);
      t = performance.now();
      await post(direct, 'sk-test-fake-key', DIRECT_BODY);
      viaDirect.push(performance.now() - t);
    }
    const timings = jobTimings(stack.sqlitePath);
    log(`latency breakdown: ${JSON.stringify(timings)}`);
    const store = await measureStore(stack, 'latency');
    return { gateway: stats(viaGateway), direct: stats(viaDirect), store, timings };
  } finally {
    await stack.stop();
  }
}

/**
 * The phase's SQLite file when the load ended (apps running), then after the workers and the api
 * closed gracefully (queued charges written), and the ledger check on the closed file.
 */
async function measureStore(stack: MediaStack, phase: string): Promise<MediaStore> {
  const atLoadEnd = snapshotStore(stack.sqlitePath);
  await stack.stopApps();
  const afterClose = snapshotStore(stack.sqlitePath);
  let ledgerCheck: MediaStore['ledgerCheck'];
  try {
    ledgerCheck = checkLedger(stack.sqlitePath);
  } catch (err) {
    log(`${phase}: ledger check failed: ${String(err)}`);
  }
  const store: MediaStore = {
    file: stack.sqlitePath,
    atLoadEnd,
    afterClose,
    ledgerCheck,
  };
  log(
    `${phase}: SQLite ${formatSize(afterClose?.size)} after close, ${afterClose?.ledgerRows ?? 'n/a'} ledger rows, ${afterClose?.mediaJobs ?? 'n/a'} media jobs; ledger check: ${describeVerdict(ledgerCheck)}`,
  );
  return store;
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** A pool phase (./media-pools.ts) with this run's settings. */
function pools(
  phase: string,
  upstream: Awaited<ReturnType<typeof startOpenAIMediaUpstream>>,
  imageSteps: readonly number[],
  video: boolean,
) {
  return poolPhase({
    phase,
    root: ROOT,
    upstreamUrl: upstream.url,
    script: upstream.script as never,
    settings: {
      imageSteps,
      imageConcurrency: settings.concurrencyPerWorker,
      warmupSeconds: settings.warmupSeconds,
      seconds: settings.seconds,
      delayMs: settings.delayMs,
      video,
    },
    s3Dir: join(TMP, `s3-${phase}`),
    storeDir: join(STORES, phase),
    logDir: LOGS,
    log,
    measureStore,
  });
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const limit = setTimeout(() => {
    log(`time limit of ${settings.timeLimitS} s reached: stopping everything`);
    killAllNow();
    process.exit(2);
  }, settings.timeLimitS * 1000);
  const upstream = await startOpenAIMediaUpstream();
  let ok = false;
  try {
    log(`fake OpenAI media upstream at ${upstream.url}`);
    const latency = await latencyPhase(upstream.url, upstream.script as never);
    log(
      `latency: gateway p50 ${latency.gateway.p50.toFixed(1)} ms p99 ${latency.gateway.p99.toFixed(1)} ms; direct p50 ${latency.direct.p50.toFixed(1)} ms p99 ${latency.direct.p99.toFixed(1)} ms`,
    );
    const throughput =
      settings.workerCounts.length === 0
        ? undefined
        : await pools('throughput', upstream, settings.workerCounts, false);
    const roles =
      settings.roleSteps.length === 0 ? undefined : await pools('roles', upstream, settings.roleSteps, true);
    const file = join(ROOT, 'bench', 'MEDIA-RESULTS.md');
    const knobs = Object.entries(env)
      .filter(([name]) => /^(MEDIA_BENCH_[A-Z_]+|KEEP)$/.test(name))
      .map(([name, value]) => `${name}=${value} `)
      .join('');
    const shortened =
      settings.seconds < 15 ||
      settings.latencyN < 300 ||
      settings.workerCounts.join(',') !== '1,2,4' ||
      settings.roleSteps.join(',') !== '1,2';
    const report = {
      command: `${knobs}node bench/media-bench.ts`,
      ...(shortened
        ? {
            note: `Shortened run (${settings.seconds} s per throughput phase and per-role step, ${settings.latencyN} latency requests, workers ${settings.workerCounts.join(',') || 'none'}, per-role image steps ${settings.roleSteps.join(',') || 'none'}; by default 15 s, 300, 1,2,4, 1,2): a smoke test, not comparable with full runs.`,
          }
        : {}),
      machine: machine(),
      date: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1000,
      settings,
      latency,
      throughput,
      roles,
    };
    writeKeepingAnalysis(file, renderMediaResults(report));
    // The full set of phases (the default): its headline numbers go to bench/RESULTS.md as well.
    if (throughput !== undefined)
      writeMediaBlock(join(ROOT, 'bench', 'RESULTS.md'), renderMediaSummary(report));
    ok = true;
    log(`wrote ${file} in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
  } finally {
    clearTimeout(limit);
    await stopAll(log);
    await upstream.close().catch(() => undefined);
    // Logs stay on failure (their folder is printed); on success the scratch folder goes.
    if (ok && !process.env.KEEP) {
      rmSync(TMP, { recursive: true, force: true });
      rmSync(STORES, { recursive: true, force: true });
    } else log(`kept: ${TMP} (logs, s3rver data) and ${STORES} (SQLite files)`);
  }
}

process.on('SIGINT', () => {
  killAllNow();
  process.exit(130);
});
process.on('exit', () => killAllNow());

main().catch((err: unknown) => {
  log(
    `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)} (logs: ${LOGS}, stores: ${STORES})`,
  );
  process.exitCode = 1;
});
