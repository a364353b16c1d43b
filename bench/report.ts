/**
 * Writes bench/RESULTS.md from one run's raw results (the harness's results.json and probe table,
 * the 1,000-stream figures, the profile summary, what each phase left in its store): the lines
 * against the floor of the run on top (./lines.ts), then the tables they come from. The blocks the
 * previous RESULTS.md kept between markers (the media summary, the hand-written analysis) are
 * carried over, so a rerun refreshes the numbers, not the commentary.
 * Standalone: `node bench/report.ts bench/results/<stamp>` rewrites it from a run's info.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeKeepingAnalysis } from './kept-analysis.ts';
import { benchLines, type LineFigures, linesTable, type SameRun } from './lines.ts';
import type { ManyStreamsResult } from './many-streams.ts';
import type { MemoryShare } from './memory.ts';
import type { ProfileSummary, Share } from './profile-summary.ts';
import type { RedisWork } from './redis-work.ts';
import type { BenchSettings } from './run-bench.ts';
import { describeVerdict, formatSize, type StoreAcrossClose } from './store-file.ts';

/** What one phase's gateway left in its store, read from outside once the phase ended. */
export interface PhaseStore extends StoreAcrossClose {
  /** The SQLite file, relative to the repository root. */
  readonly file: string;
  /** The phase's Redis: the billing scripts' calls, commands and time. */
  readonly redisWork: RedisWork | null;
}

export interface RunInfo {
  readonly command: string;
  readonly settings: BenchSettings;

  readonly startedAt: string;
  readonly elapsedS: number;
  readonly machine: string;
  readonly outDir: string;
  readonly root: string;
  readonly store: Readonly<Record<string, PhaseStore>>;
  /** 1-minute load average at the start and the end of each phase. */
  readonly loadAverage: Readonly<Record<string, readonly [number, number]>>;
  readonly profile: { readonly file: string; readonly summary: ProfileSummary } | undefined;
  readonly streams: ManyStreamsResult | undefined;
  /** The same streams through a fresh floor proxy. */
  readonly floorStreams: ManyStreamsResult | undefined;
  readonly portkeyVersion: string;
  readonly tree: string;
}

interface Aggregate {
  readonly delayMs: number;
  readonly target: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly procs: Readonly<Record<string, { readonly cpuMsPerReq: number }>>;
}
interface Segment {
  readonly round: number;
  readonly target: string;
  readonly rps: number;
  readonly ok: number;
  readonly upstreamHits: number | null;
}
interface HarnessResults {
  readonly aggregate: readonly Aggregate[];
  readonly segments: readonly Segment[];
}

/** The process whose CPU is charged to each target. */
const OWN_PROCESS: Record<string, string> = {
  direct: 'mock',
  gateway: 'api',
  'gateway-channels': 'api-channels',
  'gateway-log-off': 'api-log-off',
  portkey: 'portkey',
  floor: 'floor',
};

const n = (x: number | undefined, digits = 2) =>
  x === undefined || Number.isNaN(x) ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(digits);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${n(x)}`;

/** A row of a probe's table, by column name. */
type Row = Record<string, string>;

/** The rows of the Markdown table of a stream-probe output file. */
function probeRows(file: string): Row[] {
  if (!existsSync(file)) return [];
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const [head, , ...body] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'));
  if (head === undefined) return [];
  const names = cells(head);
  return body.map((line) =>
    Object.fromEntries(cells(line).map((value, i) => [names[i] ?? String(i), value])),
  );
}

/** CPU-ms per request of the target's own process. */
const cpuOf = (a: Aggregate) => a.procs[OWN_PROCESS[a.target] ?? '']?.cpuMsPerReq;

function header(info: RunInfo): string {
  const s = info.settings;
  const rel = (path: string) => relative(info.root, path);
  const loads = Object.entries(info.loadAverage)
    .map(([phase, [a, b]]) => `${phase} ${a.toFixed(1)} → ${b.toFixed(1)}`)
    .join(', ');
  const short = s.duration < 10 || s.rounds < 3 || s.warmupFirst < 20;
  const note = `\n\n**Shortened run** (${s.duration} s × ${s.rounds} rounds, first warm-up ${s.warmupFirst} s; by default 10 s × 3 and 20 s): a smoke test, not comparable with full runs.`;
  return [
    '# Benchmark: the gateway beside its upstream, Portkey and the floor of its own libraries',
    '',
    `Produced by \`${info.command}\` (${(info.elapsedS / 60).toFixed(1)} min), started ${info.startedAt}.${short ? note : ''}`,
    '',
    `- Machine: ${info.machine}; load generator wrk, one thread, on CPU ${s.loadgenCpus}; the api, the mock, Portkey and the floor on CPU ${s.serverCpus}; Redis on CPU ${s.storesCpus}.`,
    `- Measured tree: ${info.tree}. Peer: @portkey-ai/gateway ${info.portkeyVersion} (npm build, stock).`,
    "- Store: a fresh SQLite file per phase (the store `npm start` uses), inside the api's process; a fresh, empty Redis per phase.",
    "- **floor**: `bench/floor-proxy.ts`, the hops of a gateway request made with the api's own libraries and nothing else (Fastify, one Redis script call through ioredis, one undici request to the mock, the answer parsed and serialized again; a stream's bytes piped through), on the api's CPU: what the libraries and this machine cost by themselves, in the same run.",
    `- Machine load (1-min load average, start → end of each phase): ${loads}.`,
    `- Raw results (git-ignored): \`${rel(info.outDir)}/\`.`,
    '',
    '',
  ].join('\n');
}

/** One load table: every target's medians, and the gateway round by round. */
function loadSection(info: RunInfo, delay: number, results: HarnessResults | undefined): string {
  const title = `## Non-streaming, ${info.settings.connections} connections, ${delay} ms upstream delay\n\n`;
  if (results === undefined) return `${title}No results.\n\n`;
  const direct = results.aggregate.find((a) => a.target === 'direct');
  let md = `${title}Medians of ${info.settings.rounds} alternating rounds of ${info.settings.duration} s; CPU-ms per request of the target's own process (the api's includes SQLite).\n\n`;
  md +=
    '| target | req/s | p50 ms | p99 ms | errors | CPU-ms/req | Redis CPU-ms/req | added p50 ms |\n|---|---|---|---|---|---|---|---|\n';
  for (const a of results.aggregate) {
    const redis = a.target === 'gateway' ? n(a.procs.redis?.cpuMsPerReq, 3) : '–';
    const added = direct && a.target !== 'direct' ? signed(a.p50 - direct.p50) : '–';
    md += `| ${a.target} | ${a.rps.toFixed(0)} | ${n(a.p50)} | ${n(a.p99)} | ${a.non2xx} | ${n(cpuOf(a), 3)} | ${redis} | ${added} |\n`;
  }
  const rounds = results.segments.filter((x) => x.target === 'gateway');
  md += `\nThe gateway round by round: ${rounds.map((x) => `${x.rps.toFixed(0)} req/s (${x.ok} answered, ${x.upstreamHits ?? 'n/a'} upstream calls)`).join('; ')}.\n`;
  const variants = [...new Set(results.segments.map((x) => x.target))].filter((t) =>
    t.startsWith('gateway-'),
  );
  for (const variant of variants) {
    const of = results.segments.filter((x) => x.target === variant);
    md += `${variant} round by round (in each round beside the gateway, after it in odd rounds and before it in even ones): ${of.map((x) => `${x.rps.toFixed(0)} req/s`).join('; ')}.\n`;
  }
  return `${md}\n`;
}

/** Two targets of one alternation: their medians and each round's ratio (`measured / reference`). */
function sameRun(
  results: HarnessResults | undefined,
  measured: string,
  reference: string,
): SameRun | undefined {
  const [a, b] = [measured, reference].map((target) => results?.aggregate.find((x) => x.target === target));
  if (results === undefined || a === undefined || b === undefined) return undefined;
  const rps = (target: string, round: number) =>
    results.segments.find((x) => x.target === target && x.round === round)?.rps;
  const roundRatios = [...new Set(results.segments.map((x) => x.round))].flatMap((round) => {
    const [m, r] = [rps(measured, round), rps(reference, round)];
    return m === undefined || r === undefined || r === 0 ? [] : [m / r];
  });
  return { measured: a.rps, reference: b.rps, roundRatios };
}

function streamsSection(rows: Row[], requests: number): string {
  let md = `## Streams ten at a time: first token\n\n${requests} streamed requests per target (20 chunks sent by the mock at once), ten at a time, after un-timed ones; time to first token and to the end, ms.\n\n`;
  md +=
    '| target | ok/n | req/s | TTFT p50 | TTFT p99 | total p50 | total p99 | added TTFT p50 |\n|---|---|---|---|---|---|---|---|\n';
  const direct = Number(rows.find((r) => r.target === 'direct')?.['TTFT p50 ms']);
  for (const r of rows) {
    const added = r.target === 'direct' ? '–' : signed(Number(r['TTFT p50 ms']) - direct);
    md += `| ${r.target} | ${r['ok/n']} | ${r['req/s']} | ${r['TTFT p50 ms']} | ${r['TTFT p99 ms']} | ${r['total p50 ms']} | ${r['total p99 ms']} | ${added} |\n`;
  }
  return `${md}\n`;
}

const memoryCells = (m: MemoryShare | null) =>
  m === null
    ? 'n/a | n/a | n/a | n/a | n/a'
    : [m.rssMb, m.newSpaceMb, m.oldSpaceMb, m.otherHeapMb, m.outsideHeapMb].map((x) => n(x, 1)).join(' | ');

function manyStreamsSection(
  api: ManyStreamsResult | undefined,
  floor: ManyStreamsResult | undefined,
): string {
  let md = '## Memory with 1,000 streams open\n\n';
  if (api === undefined) return `${md}Not run (BENCH_MANY_STREAMS=0).\n\n`;
  md += `On a fresh api and a fresh floor: 20 streams one after the other (idle: the memory after them), then ${api.count} streamed requests started together on a slow stream (20 chunks 250 ms apart, about 5 s open). RSS sampled every 50 ms and the kernel's peak; the breakdown is V8's committed heap by space, asked of the process (\`bench/memory-preload.ts\`) at idle and once every stream had its first token.\n\n`;
  md +=
    '| target | ok | failed | RSS idle MB | RSS peak MB | growth MB | TTFT alone p50 ms | burst TTFT p50 / p99 ms |\n|---|---|---|---|---|---|---|---|\n';
  const both = [
    ['gateway (api)', api],
    ['floor', floor],
  ] as const;
  for (const [target, r] of both) {
    if (r === undefined) continue;
    md += `| ${target} | ${r.ok} | ${r.failed} | ${n(r.rssBeforeMb)} | ${n(r.rssPeakMb)} | ${n(r.rssPeakMb - r.rssBeforeMb)} | ${n(r.aloneTtftMs)} | ${n(r.ttftP50Ms)} / ${n(r.ttftP99Ms)} |\n`;
  }
  md +=
    "\n| target, moment | RSS MB | V8 young generation MB | V8 old space MB | V8 code and other MB | outside V8's heap MB |\n|---|---|---|---|---|---|\n";
  for (const [target, r] of both) {
    if (r === undefined) continue;
    md += `| ${target}, idle | ${memoryCells(r.memoryIdle)} |\n| ${target}, ${r.count} open | ${memoryCells(r.memoryAmid)} |\n`;
  }
  if (api.firstFailure !== undefined) md += `\nFirst failure: \`${api.firstFailure.replaceAll('`', "'")}\`\n`;
  return `${md}\n`;
}

function profileSection(info: RunInfo): string {
  let md = '## CPU profile of the api\n\n';
  if (info.profile === undefined) return `${md}Not run (BENCH_PROFILE_SECONDS=0).\n\n`;
  const p = info.profile.summary;
  md += `\`node --cpu-prof\` on a fresh api, ${info.settings.profileSeconds} s of the 0 ms load (\`${relative(info.root, info.profile.file)}\`): ${(p.busyMs / 1000).toFixed(1)} s busy of ${(p.totalMs / 1000).toFixed(1)} s${p.windowed ? " (the load's span only)" : ''}. Shares of the busy time.\n\n`;
  const table = (title: string, rows: readonly Share[], limit: number) =>
    `**${title}**\n\n| share | ms | what |\n|---|---|---|\n${rows
      .slice(0, limit)
      .map((r) => `| ${r.pct.toFixed(1)} % | ${r.ms} | \`${r.name}\` |`)
      .join('\n')}\n\n`;
  md += table(
    'By component (each sample charged to its innermost project or npm-package frame)',
    p.byComponent,
    10,
  );
  md += table('Project functions, inclusive', p.ownInclusive, 8);
  md += table('Busiest functions of any origin, self time', p.topSelf, 6);
  return md;
}

function storeSection(info: RunInfo): string {
  let md =
    "## Store and Redis per phase\n\nThe phase's SQLite file read read-only from outside when its load ended and after the api's graceful close; the ledger check compares every wallet with the sum of its ledger entries on the closed file. Redis per charge: the billing scripts' own time in the phase's Redis and their commands, over the ledger rows (every replica's admissions share one Redis).\n\n";
  md +=
    '| phase | size after close | ledger rows | ledger check | Redis per charge: µs / commands |\n|---|---|---|---|---|\n';
  for (const [phase, s] of Object.entries(info.store)) {
    const rows = s.atLoadEnd?.ledgerRows;
    const work = s.redisWork;
    const perCharge =
      work && rows
        ? `${(work.scriptMicros / rows).toFixed(1)} / ${(work.commandsInScripts / rows).toFixed(1)}`
        : 'n/a';
    md += `| ${phase} | ${formatSize(s.afterClose?.size)} | ${s.afterClose?.ledgerRows ?? 'n/a'} | ${describeVerdict(s.ledgerCheck)} | ${perCharge} |\n`;
  }
  return `${md}\n`;
}

const HOW_TO_RUN =
  "## How to run\n\n`npm run bench` (needs `wrk` and `redis-server`; about 14 minutes: these phases, about 9, alone with `npm run bench:chat`, then the media phases, `npm run bench:media`, results in [`MEDIA-RESULTS.md`](MEDIA-RESULTS.md), then the console pages, `npm run bench:console`, in [`CONSOLE-RESULTS.md`](CONSOLE-RESULTS.md)). Knobs (env): `BENCH_DURATION` (10 s per segment), `BENCH_ROUNDS` (3), `BENCH_WARMUP_FIRST` (20 s), `BENCH_WARMUP` (3 s), `BENCH_WARMUP_NEXT` (5 s), `BENCH_API_WARMUP` (10 s of load on a fresh api before it is measured), `BENCH_DELAYS` (0,50), `BENCH_CHANNELS` (4 API channels for the second gateway measured at 0 ms; 0 skips it), `BENCH_LOG_OFF` (1: a gateway with the request log off measured at 0 ms; 0 skips it), `BENCH_CONNECTIONS` (50), `BENCH_ACCOUNTS` (8 × 25 keys), `BENCH_STREAM_REQUESTS` (1200), `BENCH_PROBE_WARMUP` (1500), `BENCH_MANY_STREAMS` (1000; 0 skips), `BENCH_PROFILE_SECONDS` (20; 0 skips), `BENCH_KEEP_STORE` (1 keeps the SQLite files), `SERVER_CPUS` (1), `LOADGEN_CPUS` (0), `STORES_CPUS` (0), `BENCH_TIME_LIMIT_S` (900). `node bench/report.ts bench/results/<stamp>` rewrites this file from a run. A closer look at the api's CPU than the profile gives: `bench/profile-api.sh` (Linux perf).\n";

/** The figures of the run that the lines compare (./lines.ts). */
function lineFigures(
  info: RunInfo,
  load: (delay: number) => HarnessResults | undefined,
  streams: Row[],
): LineFigures {
  const at = (delay: number, target: string) => load(delay)?.aggregate.find((a) => a.target === target);
  const added = (delay: number, target: string) => {
    const [of, direct] = [at(delay, target), at(delay, 'direct')];
    return of && direct && of.p50 - direct.p50;
  };
  const ttft = (target: string) =>
    Number(streams.find((r) => r.target === target)?.['TTFT p50 ms'] ?? Number.NaN);
  const addedTtft = (target: string) => {
    const value = ttft(target) - ttft('direct');
    return Number.isNaN(value) ? undefined : value;
  };
  const cpu = (target: string) => {
    const figures = at(0, target);
    return figures && cpuOf(figures);
  };
  const [api, floor] = [info.streams, info.floorStreams];
  return {
    rps: { gateway: at(0, 'gateway')?.rps, portkey: at(0, 'portkey')?.rps, floor: at(0, 'floor')?.rps },
    channels: sameRun(load(0), 'gateway-channels', 'gateway'),
    logOff: sameRun(load(0), 'gateway', 'gateway-log-off'),
    cpuMs: { gateway: cpu('gateway'), floor: cpu('floor') },
    added50: { gateway: added(50, 'gateway'), floor: added(50, 'floor') },
    addedTtft: { gateway: addedTtft('gateway'), floor: addedTtft('floor') },
    idleMb: { gateway: api?.rssBeforeMb, floor: floor?.rssBeforeMb },
    growthMb: {
      gateway: api && api.rssPeakMb - api.rssBeforeMb,
      floor: floor && floor.rssPeakMb - floor.rssBeforeMb,
    },
  };
}

export function writeResults(info: RunInfo): string {
  const results = (delay: number) => join(info.outDir, `load-${delay}`, 'results.json');
  const load = (delay: number) =>
    existsSync(results(delay))
      ? (JSON.parse(readFileSync(results(delay), 'utf8')) as HarnessResults)
      : undefined;
  const streams = probeRows(join(info.outDir, 'stream-sse.md'));
  const lines = benchLines(lineFigures(info, load, streams));
  let md = header(info);
  md += `## Lines, against the floor of this run\n\n${linesTable(lines)}\n\n`;
  for (const delay of info.settings.delays) md += loadSection(info, delay, load(delay));
  md += streamsSection(streams, info.settings.streamRequests);
  md += manyStreamsSection(info.streams, info.floorStreams);
  md += profileSection(info);
  md += storeSection(info);
  md += HOW_TO_RUN;
  const file = join(info.root, 'bench', 'RESULTS.md');
  writeKeepingAnalysis(file, md);
  writeFileSync(join(info.outDir, 'info.json'), JSON.stringify(info, null, 2));
  return file;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2];
  if (dir === undefined) {
    process.stderr.write('usage: node bench/report.ts bench/results/<stamp>\n');
    process.exit(2);
  }
  const info = JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8')) as RunInfo;
  process.stdout.write(`wrote ${writeResults(info)}\n`);
}
