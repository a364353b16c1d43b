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
import { writeKeepingAnalysis } from './kept-analysis.ts';
import { poolPhase } from './media-pools.ts';
import { type LatencyResult, type MediaStore, renderMediaResults } from './media-report.ts';
import { type MediaStack, type StackOptions, startMediaStack } from './media-stack.ts';
import { runOwning } from './processes.ts';
import { commandLabel, machineLabel } from './run-labels.ts';
import { median, percentile } from './stats.ts';
import { describeVerdict, jobTimings, storeAcrossClose } from './store-file.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));
/** Image worker processes at each step of a pool phase: a growing list ("1,2,4"); empty skips it. */
function steps(list: string): number[] {
  const counts = list
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  if (counts.some((n, i) => i > 0 && n <= (counts[i - 1] ?? 0))) throw new Error(`steps must grow: ${list}`);
  return counts;
}
const settings = {
  seconds: num('MEDIA_BENCH_SECONDS', 15),
  warmupSeconds: 2,
  latencyN: num('MEDIA_BENCH_LATENCY_N', 300),
  // Enough for the api's and the worker's paths to be compiled (with 20, the p50 of the first
  // hundred timed requests read 1-3 ms higher than the steady state).
  latencyWarmup: 100,
  workerCounts: steps(env.MEDIA_BENCH_WORKERS ?? '1,2,4'),
  concurrencyPerWorker: num('MEDIA_BENCH_CONCURRENCY', 4),
  roleSteps: steps(env.MEDIA_BENCH_ROLES ?? '1,2'),
  delayMs: 200,
  timeLimitS: num('MEDIA_BENCH_TIME_LIMIT_S', 300),
};
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

/** A phase's stack on its own scratch folders (s3rver's in memory, the SQLite file on disk). */
const stackOf =
  (phase: string, upstreamUrl: string) =>
  (o: Pick<StackOptions, 'workers' | 'workerConcurrency' | 'keys' | 'env'>) =>
    startMediaStack({
      ...o,
      root: ROOT,
      phase,
      upstreamUrl,
      s3Dir: join(TMP, `s3-${phase}`),
      storeDir: join(STORES, phase),
      logDir: LOGS,
      log,
    });

function stats(samples: number[]) {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { n: samples.length, p50: median(samples), p99: percentile(samples, 0.99), mean };
}

async function latencyPhase(
  upstreamUrl: string,
  script: { always(b: unknown): void },
): Promise<LatencyResult> {
  script.always({ kind: 'slow', delayMs: 0 });
  const stack = await stackOf(
    'latency',
    upstreamUrl,
  )({ workers: 1, workerConcurrency: settings.concurrencyPerWorker, keys: 1 });
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
  const store = {
    file: stack.sqlitePath,
    ...(await storeAcrossClose(stack.sqlitePath, stack.stopApps, log)),
  };
  const after = store.afterClose;
  log(
    `${phase}: ${after?.ledgerRows ?? 'n/a'} ledger rows, ${after?.mediaJobs ?? 'n/a'} media jobs; ledger check: ${describeVerdict(store.ledgerCheck)}`,
  );
  return store;
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
    startStack: stackOf(phase, upstream.url),
    script: upstream.script as never,
    settings: {
      imageSteps,
      imageConcurrency: settings.concurrencyPerWorker,
      warmupSeconds: settings.warmupSeconds,
      seconds: settings.seconds,
      delayMs: settings.delayMs,
      video,
    },
    log,
    measureStore,
  });
}

/** A shortened run's note (anything below the defaults), said at the top of the results. */
function shortenedNote(): { note?: string } {
  const s = settings;
  const defaults =
    s.seconds >= 15 && s.latencyN >= 300 && `${s.workerCounts}` === '1,2,4' && `${s.roleSteps}` === '1,2';
  if (defaults) return {};
  return {
    note: `Shortened run (${s.seconds} s per pool step, ${s.latencyN} latency requests, image pools ${s.workerCounts.join(',') || 'none'} and ${s.roleSteps.join(',') || 'none'}; by default 15 s, 300, 1,2,4 and 1,2): a smoke test, not comparable with full runs.`,
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const upstream = await startOpenAIMediaUpstream();
  let ok = false;
  try {
    log(`fake OpenAI media upstream at ${upstream.url}`);
    const latency = await latencyPhase(upstream.url, upstream.script as never);
    const { workerCounts, roleSteps } = settings;
    const throughput =
      workerCounts.length === 0 ? undefined : await pools('throughput', upstream, workerCounts, false);
    const roles = roleSteps.length === 0 ? undefined : await pools('roles', upstream, roleSteps, true);
    const file = join(ROOT, 'bench', 'MEDIA-RESULTS.md');
    const report = {
      command: commandLabel('node bench/media-bench.ts', /^(MEDIA_BENCH_[A-Z_]+|KEEP)$/),
      ...shortenedNote(),
      machine: machineLabel(),
      date: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1000,
      settings,
      latency,
      throughput,
      roles,
    };
    writeKeepingAnalysis(file, renderMediaResults(report));
    ok = true;
    log(`wrote ${file} in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
  } finally {
    await upstream.close().catch(() => undefined);
    // Logs stay on failure (their folder is printed); on success the scratch folder goes.
    if (ok && !process.env.KEEP) {
      rmSync(TMP, { recursive: true, force: true });
      rmSync(STORES, { recursive: true, force: true });
    } else log(`kept: ${TMP} (logs, s3rver data) and ${STORES} (SQLite files)`);
  }
}

runOwning(main, { name: 'media-bench', timeLimitS: settings.timeLimitS, log });
