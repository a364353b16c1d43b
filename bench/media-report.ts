/** Renders bench/MEDIA-RESULTS.md from the numbers `node bench/media-bench.ts` measured. */
import { type PoolResult, type PoolStep, VIDEO_CLIENTS, VIDEO_CONCURRENCY } from './media-pools.ts';
import { describeVerdict, formatSize, type StoreAcrossClose } from './store-file.ts';

export interface Stats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

/** What one phase left in its SQLite file, read read-only from outside (bench/store-file.ts). */
export interface MediaStore extends StoreAcrossClose {
  readonly file: string;
}

export interface LatencyResult {
  gateway: Stats;
  direct: Stats;
  store: MediaStore;
  timings: Record<string, number>;
}

export interface ReportInput {
  command: string;
  machine: string;
  date: string;
  durationS: number;
  settings: { seconds: number; latencyN: number; delayMs: number; concurrencyPerWorker: number };
  latency: LatencyResult;
  /** The image pool grown alone (section 2), and beside a video pool (section 3), when they ran. */
  throughput?: PoolResult;
  roles?: PoolResult;
  /** Said at the top when present (a shortened run). */
  note?: string;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;
const f1 = (v: number) => v.toFixed(1);
const table = (head: readonly string[], rows: readonly (readonly (string | number)[])[]) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---|').join('')}`,
  ...rows.map((row) => `| ${row.join(' | ')} |`),
];
/** What a pool step's image workers could do if nothing else limited them. */
const ceiling = (r: PoolResult, x: PoolStep) =>
  (x.imageWorkers * r.settings.imageConcurrency * 1000) / r.settings.delayMs;
/** A step's image jobs/s against linear scaling from the first step. */
const efficiency = (r: PoolResult, x: PoolStep) => {
  const first = r.steps[0];
  return first
    ? x.imageJobsPerSecond / ((x.imageWorkers / first.imageWorkers) * first.imageJobsPerSecond)
    : Number.NaN;
};

function latencySection(l: LatencyResult): string[] {
  const added = l.gateway.p50 - l.direct.p50;
  const created = l.timings.createdToCompletedMs ?? Number.NaN;
  const delivered = l.timings.completedToDeliveredMs ?? Number.NaN;
  return [
    '## 1. Synchronous image request: through the queue vs the provider called directly',
    '',
    `Sequential, ${l.gateway.n} requests each (after 100 warm-up), interleaved, provider delay 0 ms: \`POST /v1/images/generations\` (\`openai/gpt-image-1\`, n 1, 1024x1024) against the fake provider called with the body the adapter sends.`,
    '',
    ...table(
      ['path', 'p50', 'p99', 'mean'],
      [
        [
          'gateway (api -> BullMQ -> worker -> provider, S3, SQLite -> api)',
          ms(l.gateway.p50),
          ms(l.gateway.p99),
          ms(l.gateway.mean),
        ],
        ['provider directly', ms(l.direct.p50), ms(l.direct.p99), ms(l.direct.mean)],
        [
          '**added**',
          `**${ms(added)}**`,
          `**${ms(l.gateway.p99 - l.direct.p99)}**`,
          ms(l.gateway.mean - l.direct.mean),
        ],
      ],
    ),
    '',
    `Target (at most 10 ms added at p50): **${added <= 10 ? 'met' : `not met, gap ${ms(added - 10)}`}**.`,
    '',
    "Where the gateway p50 goes (medians of the `media_jobs` rows' timestamps, 1 ms resolution):",
    '',
    ...table(
      ['segment', 'ms'],
      [
        [
          'created -> completed (worker: pickup, running update, provider, S3 put, completed update)',
          f1(created),
        ],
        [
          'completed -> delivered (api woken with the result, charge queued, delivered update)',
          f1(delivered),
        ],
        [
          'the rest (admission, hold, job insert and enqueue; response; HTTP)',
          f1(l.gateway.p50 - created - delivered),
        ],
        ['of which the provider itself (direct p50)', f1(l.direct.p50)],
      ],
    ),
    '',
  ];
}

function cpuTable(r: PoolResult): string[] {
  const names = Object.keys(r.steps.at(-1)?.cpu ?? {});
  const total = (x: PoolStep) => Object.values(x.cpu).reduce((a, b) => a + b, 0);
  return table(
    ['image workers', ...names, 'total'],
    r.steps.map((x) => [
      x.imageWorkers,
      ...names.map((n) => (x.cpu[n] ?? 0).toFixed(2)),
      total(x).toFixed(2),
    ]),
  );
}

function throughputSection(r: PoolResult): string[] {
  const met = r.steps.every((x) => x.imageWorkers === 1 || efficiency(r, x) >= 0.9);
  return [
    '## 2. Job throughput by image worker processes',
    '',
    `One stack; the image pool grown to ${r.settings.imageSteps.join(', ')} \`WORKER_QUEUES=image\` processes while it runs (WORKER_CONCURRENCY_IMAGE=${r.settings.imageConcurrency}), a closed loop of 2 x the pool's concurrency clients; provider delay ${r.settings.delayMs} ms; each step ${r.settings.warmupSeconds} s after the change, then ${r.settings.seconds} s measured. Ceiling: workers x concurrency / delay.`,
    '',
    ...table(
      ['workers', 'clients', 'jobs/s', 'ceiling', 'of ceiling', 'efficiency vs 1', 'p50', 'p99', 'errors'],
      r.steps.map((x) => [
        x.imageWorkers,
        x.imageClients,
        f1(x.imageJobsPerSecond),
        f1(ceiling(r, x)),
        `${((100 * x.imageJobsPerSecond) / ceiling(r, x)).toFixed(0)} %`,
        efficiency(r, x).toFixed(2),
        ms(x.imageP50Ms),
        ms(x.imageP99Ms),
        x.errors,
      ]),
    ),
    '',
    `Target (efficiency at least 0.9 up to 4): **${met ? 'met' : 'not met'}**.${r.steps.some((x) => x.errors > 0) ? ` First error: ${r.steps.find((x) => x.errors > 0)?.firstError.slice(0, 300)}` : ''}`,
    '',
    'What limits it: CPU per process during each window (cores busy):',
    '',
    ...cpuTable(r),
    '',
  ];
}

function rolesSection(r: PoolResult): string[] {
  const first = r.steps[0];
  const video = (x: PoolStep) =>
    first ? `${((x.videosPerSecond / first.videosPerSecond - 1) * 100).toFixed(1)} %` : 'n/a';
  return [
    '## 3. Per-role pools: the image pool scaled while the video pool stays',
    '',
    `One stack as the Kubernetes manifests run it (one worker Deployment per role): the image pool as in section 2, grown to ${r.settings.imageSteps.join(', ')} processes, beside a video pool of one \`WORKER_QUEUES=video\` process (WORKER_CONCURRENCY_VIDEO=${VIDEO_CONCURRENCY}, few on purpose: its renders/s is the pool's capacity), never touched, under ${VIDEO_CLIENTS} video clients (each submits a 4 s render, polls it every 100 ms until completed, submits the next; a render is 4 provider calls). "Waiting": \`LLEN <prefix>:<queue>:wait\` every 250 ms, what the ScaledObjects' \`waiting\` triggers read.`,
    '',
    ...table(
      [
        'image workers',
        'video workers',
        'image jobs/s',
        'image ceiling',
        'video renders/s',
        'image p50',
        'video p50 (submit -> completed)',
        'image waiting (mean / max)',
        'video waiting (mean / max)',
        'errors',
      ],
      r.steps.map((x) => [
        x.imageWorkers,
        x.videoWorkers,
        f1(x.imageJobsPerSecond),
        f1(ceiling(r, x)),
        x.videosPerSecond.toFixed(2),
        ms(x.imageP50Ms),
        ms(x.videoP50Ms),
        `${f1(x.imageWaiting.mean)} / ${x.imageWaiting.max}`,
        `${f1(x.videoWaiting.mean)} / ${x.videoWaiting.max}`,
        x.errors,
      ]),
    ),
    '',
    ...r.steps
      .slice(1)
      .map(
        (x) =>
          `With ${x.imageWorkers} image workers: image efficiency ${efficiency(r, x).toFixed(2)} against the first step, video renders/s ${video(x)} against it (the video pool unchanged).`,
      ),
    '',
    ...cpuTable(r),
    '',
  ];
}

const storeRow = (phase: string, s: MediaStore) => {
  const after = s.afterClose;
  return [
    phase,
    formatSize(s.atLoadEnd?.size),
    formatSize(after?.size),
    after?.ledgerRows ?? 'n/a',
    after?.mediaJobs ?? 'n/a',
    describeVerdict(s.ledgerCheck),
  ];
};

/** The phases that ran, with their stores. */
function phases(r: ReportInput): [string, MediaStore][] {
  const pools = [['image pool', r.throughput] as const, ['per-role pools', r.roles] as const];
  return [
    ['latency', r.latency.store],
    ...pools.flatMap(([name, p]): [string, MediaStore][] => (p ? [[name, p.store]] : [])),
  ];
}

export function renderMediaResults(r: ReportInput): string {
  const folder = r.latency.store.file.split('/').slice(0, -2).join('/');
  const lines = [
    '# Media job path: benchmark results',
    '',
    `Command: \`${r.command}\` (${f1(r.durationS)} s). Date: ${r.date}. Machine: ${r.machine}.`,
    '',
    ...(r.note === undefined ? [] : [`**${r.note}**`, '']),
    `Every phase runs on its own empty redis-server and s3rver (its files in /dev/shm: the host disk's latency is not what this measures) and its own fresh SQLite file (\`${folder}/<phase>/gateway.db\`, on the disk, shared by the api and the workers, as under \`npm start\`; nothing pruned); the api and the workers are \`node api/src/main.ts\` and \`node workers/src/main.ts\`; the fake OpenAI media provider (test/fakes/openai-media-upstream.ts, real PNG answers) and the clients run in the benchmark process. Nothing is pinned to a CPU.`,
    '',
    ...latencySection(r.latency),
    ...(r.throughput === undefined ? [] : throughputSection(r.throughput)),
    ...(r.roles === undefined ? [] : rolesSection(r.roles)),
    '## 4. The store after each phase',
    '',
    'Read read-only from outside (`bench/store-file.ts`) when the load ended and after the apps closed gracefully (queued charges written, WAL checkpointed); the ledger check compares every wallet with the sum of its ledger entries on the closed file.',
    '',
    ...table(
      [
        'phase',
        'size at load end (db + wal)',
        'size after close',
        'ledger rows',
        'media jobs',
        'ledger check',
      ],
      phases(r).map(([name, s]) => storeRow(name, s)),
    ),
    '',
    '## Caveats',
    '',
    '- One run, on a machine whose cores the clients, the fake provider, s3rver, Redis, the api and the workers share (SQLite runs inside the api and the workers): at 4 workers the whole machine can be close to busy, which caps scaling too.',
    '- CPU is from /proc/<pid>/stat before and after each window (the runner row: this process); jobs/s counts client-side completions (HTTP 200 with the image) inside the window.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
