/** Renders bench/MEDIA-RESULTS.md from the numbers `node bench/media-bench.ts` measured. */

import type { RolesResult } from './media-roles.ts';
import { describeVerdict, formatSize, type LedgerVerdict, type StoreSnapshot } from './store-file.ts';

export interface Stats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

/** What one phase left in its SQLite file, read read-only from outside (bench/store-file.ts). */
export interface MediaStore {
  file: string;
  /** When the phase's load ended (api and workers running), and after they closed gracefully. */
  atLoadEnd: StoreSnapshot | null;
  afterClose: StoreSnapshot | null;
  /** Every wallet against the sum of its ledger entries, on the closed file. */
  ledgerCheck: LedgerVerdict | undefined;
}

export interface LatencyResult {
  gateway: Stats;
  direct: Stats;
  store: MediaStore;
  timings: Record<string, number>;
}

export interface ThroughputResult {
  workers: number;
  concurrencyPerWorker: number;
  clients: number;
  jobsPerSecond: number;
  perSecond: number[];
  latency: Stats;
  errors: number;
  firstError: string;
  /** CPU seconds per second of the window (1.0 = one core busy), per process group. */
  cpu: Record<string, number>;
  store: MediaStore;
  totalCompleted: number;
}

export interface ReportInput {
  command: string;
  machine: string;
  date: string;
  durationS: number;
  settings: { seconds: number; latencyN: number; delayMs: number; concurrencyPerWorker: number };
  latency: LatencyResult;
  throughput: ThroughputResult[];
  /** The per-role phase (./media-roles.ts), when it ran. */
  roles?: RolesResult;
  /** Said at the top when present (a shortened run). */
  note?: string;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const f1 = (v: number) => v.toFixed(1);

export function renderMediaResults(r: ReportInput): string {
  const { latency: l, throughput: t, settings: s } = r;
  const addedP50 = l.gateway.p50 - l.direct.p50;
  const addedP99 = l.gateway.p99 - l.direct.p99;
  const one = t.find((x) => x.workers === 1);
  const eff = (x: ThroughputResult) => (one ? x.jobsPerSecond / (x.workers * one.jobsPerSecond) : Number.NaN);
  const ceiling = (x: ThroughputResult) => (x.workers * x.concurrencyPerWorker * 1000) / s.delayMs;
  const cpuNames = Object.keys(t[0]?.cpu ?? {});
  const lines = [
    '# Media job path: benchmark results',
    '',
    `Command: \`${r.command}\` (${f1(r.durationS)} s). Date: ${r.date}. Machine: ${r.machine}.`,
    '',
    ...(r.note === undefined ? [] : [`**${r.note}**`, '']),
    `**Store: SQLite (node:sqlite, WAL) file \`${storeFolder(r)}/<phase>/gateway.db\`, a fresh one for each phase, shared by the api and the worker processes of the phase (the store \`npm start\` uses: \`SQLITE_PATH\` set, \`MONGO_URL\` unset), on the host's disk; nothing pruned.**`,
    '',
    'Every phase runs on its own empty redis-server and s3rver and its own SQLite file; the api and',
    `the worker processes are \`node api/src/main.ts\` and \`node workers/src/main.ts\` (WORKER_QUEUES=image${r.roles === undefined ? '' : ', and =video in section 3'});`,
    'the fake OpenAI media provider (test/fakes/openai-media-upstream.ts, real PNG answers) and the load',
    'generator run in the benchmark process. Nothing is pinned to a CPU: all of it shares the machine.',
    "s3rver keeps its files in /dev/shm (memory): the host disk's latency varies here from hour to",
    'hour by a factor of 2-3 and is not what this measures (the SQLite file stays on disk, as in use).',
    '',
    '## 1. Synchronous image request: through the queue vs the provider called directly',
    '',
    `Sequential (concurrency 1), ${l.gateway.n} requests each (after 100 warm-up), interleaved, provider delay 0 ms.`,
    'Gateway: `POST /v1/images/generations` `{model: openai/gpt-image-1, prompt, n: 1, size: 1024x1024}`;',
    'direct: `POST <fake>/v1/images/generations` with the body the adapter sends',
    '(`{model: gpt-image-1, prompt, n: 1, size: 1024x1024, output_format: png}`).',
    '',
    '| path | p50 | p99 | mean |',
    '|---|---|---|---|',
    `| gateway (api -> BullMQ -> worker -> provider, S3, SQLite -> api) | ${ms(l.gateway.p50)} | ${ms(l.gateway.p99)} | ${ms(l.gateway.mean)} |`,
    `| provider directly | ${ms(l.direct.p50)} | ${ms(l.direct.p99)} | ${ms(l.direct.mean)} |`,
    `| **added** | **${ms(addedP50)}** | **${ms(addedP99)}** | ${ms(l.gateway.mean - l.direct.mean)} |`,
    '',
    `Target (at most 10 ms added at p50): **${addedP50 <= 10 ? 'met' : `not met, gap ${ms(addedP50 - 10)}`}**.`,
    `Store at the end of the phase (after close): ${storeLine(l.store)}.`,
    '',
    'Where the gateway p50 goes (medians from the `media_jobs` rows, ms resolution): before the job',
    'row exists (auth, admission, hold) + created -> completed (BullMQ pickup, running update,',
    'provider, S3 put beside the Redis copy, completed update) + completed -> delivered (QueueEvents',
    'wake-up carrying the result, charge queued for the group commit, delivered update) + after',
    '(response):',
    '',
    '| segment | ms |',
    '|---|---|',
    `| created -> completed (worker side) | ${f1(l.timings.createdToCompletedMs ?? Number.NaN)} |`,
    `| completed -> delivered (api wake-up, charge) | ${f1(l.timings.completedToDeliveredMs ?? Number.NaN)} |`,
    `| rest of the gateway p50 (admission, hold, job insert and enqueue before the row's time; taking the Redis copy; response; HTTP) | ${f1(l.gateway.p50 - (l.timings.createdToCompletedMs ?? 0) - (l.timings.completedToDeliveredMs ?? 0))} |`,
    `| of which the provider itself (direct p50) | ${f1(l.direct.p50)} |`,
    '',
    '## 2. Job throughput by worker processes',
    '',
    `Provider delay ${s.delayMs} ms; each worker process runs WORKER_CONCURRENCY_IMAGE=${s.concurrencyPerWorker};`,
    `closed loop with 2 x total worker concurrency clients; 2 s warm-up, then ${s.seconds} s measured.`,
    'Ceiling = workers x concurrency / delay (what the workers could do if nothing else limited them).',
    '',
    '| workers | clients | jobs/s | ceiling | of ceiling | efficiency vs 1 | p50 | p99 | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...t.map(
      (x) =>
        `| ${x.workers} | ${x.clients} | ${f1(x.jobsPerSecond)} | ${f1(ceiling(x))} | ${((100 * x.jobsPerSecond) / ceiling(x)).toFixed(0)} % | ${eff(x).toFixed(2)} | ${ms(x.latency.p50)} | ${ms(x.latency.p99)} | ${x.errors} |`,
    ),
    '',
    `Target (efficiency at least 0.9 up to 4): **${t.every((x) => x.workers === 1 || eff(x) >= 0.9) ? 'met' : `not met (${t.map((x) => `${x.workers}: ${eff(x).toFixed(2)}`).join(', ')})`}**.`,
    ...t
      .filter((x) => x.errors > 0)
      .map((x) => `First error with ${x.workers} worker(s): ${x.firstError.slice(0, 300)}`),
    '',
    '### What limits it: CPU per process during the measured window (cores busy; the machine has',
    `${'2'} cores)`,
    '',
    `| workers | ${cpuNames.join(' | ')} | total |`,
    `|---|${cpuNames.map(() => '---|').join('')}---|`,
    ...t.map((x) => {
      const total = Object.values(x.cpu).reduce((a, b) => a + b, 0);
      return `| ${x.workers} | ${cpuNames.map((n) => (x.cpu[n] ?? 0).toFixed(2)).join(' | ')} | ${total.toFixed(2)} |`;
    }),
    '',
    'Completions per second across the window (a falling row: per-job cost growing during the run):',
    '',
    '| workers | jobs completed in each second |',
    '|---|---|',
    ...t.map((x) => `| ${x.workers} | ${x.perSecond.join(' ')} |`),
    '',
    ...(r.roles === undefined ? [] : renderRoles(r.roles)),
    `## ${r.roles === undefined ? 3 : 4}. The store after each phase`,
    '',
    "The phase's SQLite file, read read-only from outside (`bench/store-file.ts`) when the load ended",
    '(api and workers running) and after they closed gracefully (queued charges written, WAL',
    'checkpointed); nothing pruned. Ledger check: every wallet against the sum of its ledger entries on',
    'the closed file.',
    '',
    '| phase | size at load end (db + wal) | size after close | ledger rows | media jobs | ledger check |',
    '|---|---|---|---|---|---|',
    storeRow('latency', l.store),
    ...t.map((x) => storeRow(`${x.workers} worker(s)`, x.store)),
    ...(r.roles === undefined ? [] : [storeRow('per-role pools', r.roles.store)]),
    '',
    '## Caveats',
    '',
    ...reading(),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

function storeFolder(r: ReportInput): string {
  const file = r.latency.store.file;
  const parts = file.split('/');
  return parts.slice(0, -2).join('/') || file;
}

function storeLine(s: MediaStore): string {
  const after = s.afterClose;
  return `${formatSize(after?.size)}, ${after?.ledgerRows ?? 'n/a'} ledger rows, ${after?.mediaJobs ?? 'n/a'} media jobs, ledger check ${describeVerdict(s.ledgerCheck)}`;
}

function storeRow(phase: string, s: MediaStore): string {
  const after = s.afterClose;
  return `| ${phase} | ${formatSize(s.atLoadEnd?.size)} | ${formatSize(after?.size)} | ${after?.ledgerRows ?? 'n/a'} | ${after?.mediaJobs ?? 'n/a'} | ${describeVerdict(s.ledgerCheck)} |`;
}

/** How the numbers were taken, and what they do not say. */
function reading(): string[] {
  return [
    '- One run, on a machine whose cores the load generator, the fake provider, s3rver, Redis, the api',
    '  and the workers share (SQLite runs inside the api and the workers; nothing pinned): at 4',
    '  workers the whole machine can be close to busy, which caps scaling too.',
    "- The latency split uses the `media_jobs` rows' timestamps (1 ms resolution, medians); CPU is",
    '  from /proc/<pid>/stat before and after the measured window (the runner row: this process);',
    '  jobs/s counts client-side completions (HTTP 200 with the image) inside the window.',
  ];
}

/**
 * The media results in short, for bench/RESULTS.md (issue 5 asks for the pipeline numbers there):
 * the two targets, their measurements and verdicts; the details and the analysis stay in
 * bench/MEDIA-RESULTS.md.
 */
export function renderMediaSummary(r: ReportInput): string {
  const { latency: l, throughput: t } = r;
  const added = l.gateway.p50 - l.direct.p50;
  const one = t.find((x) => x.workers === 1);
  const eff = (x: ThroughputResult) => (one ? x.jobsPerSecond / (x.workers * one.jobsPerSecond) : Number.NaN);
  const scaling = t.filter((x) => x.workers > 1);
  const scalingMet = scaling.length > 0 && scaling.every((x) => eff(x) >= 0.9);
  return [
    '## Media job path (issue 5)',
    '',
    `\`npm run bench\` runs \`bench/media-bench.ts\` after the phases above (${r.date}, ${f1(r.durationS)} s${r.note === undefined ? '' : '; a shortened run'}):`,
    'its own Redis, s3rver and SQLite file per phase (nothing pruned), api and worker processes, and the',
    'fake OpenAI media provider. Details, the split of the latency and the store after each phase:',
    '[`bench/MEDIA-RESULTS.md`](MEDIA-RESULTS.md).',
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    `| synchronous image through the queue: added p50 ≤ 10 ms | ${ms(l.gateway.p50)} vs ${ms(l.direct.p50)} direct = +${ms(added)} (p99 +${ms(l.gateway.p99 - l.direct.p99)}) | **${added <= 10 ? 'met' : `not met, gap ${ms(added - 10)}`}** |`,
    `| job throughput at 200 ms per job: efficiency ≥ 0.9 of linear up to 4 workers | ${t.map((x) => `${x.workers}: ${f1(x.jobsPerSecond)} jobs/s${x.workers > 1 ? ` (${eff(x).toFixed(2)})` : ''}`).join(', ')} | **${scalingMet ? 'met' : 'not met'}** |`,
    ...(r.roles === undefined ? [] : [rolesSummaryRow(r.roles)]),
    '',
    `Ledger check after each phase: ${[`latency ${describeVerdict(l.store.ledgerCheck)}`, ...t.map((x) => `${x.workers} worker(s) ${describeVerdict(x.store.ledgerCheck)}`)].join(', ')}.`,
  ].join('\n');
}

/** Section 3: the per-role pools, image scaled while video stays. */
function renderRoles(roles: RolesResult): string[] {
  const { settings: s, steps } = roles;
  const first = steps[0];
  const cpuNames = Object.keys(first?.cpu ?? {});
  const ceiling = (x: RolesResult['steps'][number]) =>
    (x.imageWorkers * s.imageConcurrency * 1000) / s.delayMs;
  const mean = (row: number[]) => row.reduce((a, b) => a + b, 0) / Math.max(1, row.length);
  return [
    '## 3. Per-role pools: the image pool scaled while the video pool stays',
    '',
    'One stack, as the Kubernetes manifests run it (infra/k8s, one worker Deployment per role): image',
    `workers are \`WORKER_QUEUES=image\` processes (WORKER_CONCURRENCY_IMAGE=${s.imageConcurrency}), the video worker a`,
    `\`WORKER_QUEUES=video\` process (WORKER_CONCURRENCY_VIDEO=${s.videoConcurrency}, few on purpose: the video pool is then the`,
    "limit of the video path, so its renders/s is the pool's capacity). Both are loaded throughout:",
    `${s.imageClients} image clients (closed loop of synchronous image requests) and ${s.videoClients} video clients (each submits a`,
    '4 s Sora render, polls it every 100 ms until completed, then submits the next). Between two',
    'windows one more image worker process starts while everything runs, as KEDA adds a pod to the',
    `image Deployment; the video pool is never touched. Provider delay ${s.delayMs} ms per call (a render`,
    `is 4 calls: submit, 2 polls, download); each window: ${s.warmupSeconds} s after the change, then ${s.seconds} s measured.`,
    '"Waiting": `LLEN <prefix>:<queue>:wait` every 250 ms, what the ScaledObjects\' `waiting` triggers read.',
    '',
    '| image workers | video workers | image jobs/s | image ceiling | video renders/s | image p50 | video p50 (submit -> completed) | image waiting (mean / max) | video waiting (mean / max) | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...steps.map(
      (x) =>
        `| ${x.imageWorkers} | ${x.videoWorkers} | ${f1(x.imageJobsPerSecond)} | ${f1(ceiling(x))} | ${x.videosPerSecond.toFixed(2)} | ${ms(x.imageP50Ms)} | ${ms(x.videoP50Ms)} | ${f1(x.imageWaiting.mean)} / ${x.imageWaiting.max} | ${f1(x.videoWaiting.mean)} / ${x.videoWaiting.max} | ${x.errors} |`,
    ),
    '',
    ...steps
      .slice(1)
      .map(
        (x) =>
          `With ${x.imageWorkers} image workers: image throughput ${first ? (x.imageJobsPerSecond / first.imageJobsPerSecond).toFixed(2) : 'n/a'} x the ${first?.imageWorkers}-worker step (efficiency ${first ? (x.imageJobsPerSecond / ((x.imageWorkers / first.imageWorkers) * first.imageJobsPerSecond)).toFixed(2) : 'n/a'}), video renders/s ${first ? signedPercent(x.videosPerSecond / first.videosPerSecond - 1) : 'n/a'} against it (the video pool unchanged).`,
      ),
    ...steps.filter((x) => x.errors > 0).map((x) => `First error: ${x.firstError.slice(0, 300)}`),
    '',
    `CPU per process group during each window (cores busy; ${mean(steps.map((x) => Object.values(x.cpu).reduce((a, b) => a + b, 0))).toFixed(2)} on average). The machine's cores are shared`,
    'with whatever else runs on it, which nothing stops for the run and this table does not count:',
    '',
    `| image workers | ${cpuNames.join(' | ')} | total |`,
    `|---|${cpuNames.map(() => '---|').join('')}---|`,
    ...steps.map((x) => {
      const total = Object.values(x.cpu).reduce((a, b) => a + b, 0);
      return `| ${x.imageWorkers} | ${cpuNames.map((n) => (x.cpu[n] ?? 0).toFixed(2)).join(' | ')} | ${total.toFixed(2)} |`;
    }),
    '',
  ];
}

const signedPercent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)} %`;

/** The per-role figures in one row of bench/RESULTS.md's media table (no target: a demonstration). */
function rolesSummaryRow(roles: RolesResult): string {
  const steps = roles.steps.map(
    (x) =>
      `${x.imageWorkers} image + ${x.videoWorkers} video: ${f1(x.imageJobsPerSecond)} image jobs/s, ${x.videosPerSecond.toFixed(2)} videos/s`,
  );
  return `| per-role pools: image pool scaled, video pool unchanged | ${steps.join('; ')} | no target |`;
}
