/**
 * Writes bench/RESULTS.md from one run's raw results (the harness's results.json and probe tables,
 * the profile summary, what each phase left in its SQLite file). The hand-written analysis between
 * the ANALYSIS markers of the previous RESULTS.md is kept as it is, so re-running the bench
 * refreshes the numbers, not the commentary.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeKeepingAnalysis } from './kept-analysis.ts';
import { formatLoopDelay, type LoopDelay } from './loop-delay.ts';
import { type ManyStreamsResult, PROBES } from './many-streams.ts';
import { type OnCpuRun, onCpuSection } from './on-cpu.ts';
import type { ProfileSummary, Share } from './profile-summary.ts';
import type { RedisWork } from './redis-work.ts';
import { type StagesRun, stageTimingSection } from './stage-timing.ts';
import { describeVerdict, formatSize, type LedgerVerdict, type StoreSnapshot } from './store-file.ts';

/** What one phase's gateway left in its store, read from outside once the phase ended. */
export interface PhaseStore {
  readonly kind: 'sqlite';
  /** The SQLite file, relative to the repository root. */
  readonly file: string;
  /** When the phase's load ended, the api still running (null: could not be read). */
  readonly atLoadEnd: StoreSnapshot | null;
  /** After the api's graceful close (queued settlements written, WAL checkpointed). */
  readonly afterClose: StoreSnapshot | null;
  /** Every wallet against the sum of its ledger entries, on the closed file. */
  readonly ledgerCheck: LedgerVerdict | undefined;
  /** The api's event-loop delay during the phase's load (null: not recorded). */
  readonly apiLoopDelay: LoopDelay | null;
  /** The phase's Redis: the billing scripts' calls, commands and time (absent in older runs). */
  readonly redisWork?: RedisWork | null;
}

/** Whether the run warmed the stream and one-at-a-time probes' fresh api (`BENCH_API_WARMUP`). */
function probesWarmed(info: RunInfo): boolean {
  return (info.probeApiWarmupS ?? 0) > 0;
}

export interface RunInfo {
  readonly command: string;
  readonly settings: {
    readonly duration: number;
    readonly rounds: number;
    readonly warmupFirst: number;
    readonly warmupNext: number;
    readonly warmup: number;
    readonly connections: number;
    readonly delays: readonly number[];
    readonly accounts: number;
    readonly profileSeconds: number;
    readonly profileDelay?: number;
    readonly stageSeconds?: number;
    readonly stageDelay?: number;
    readonly onCpuSeconds?: number;
    readonly onCpuDelays?: readonly number[];
    readonly onCpuWarmup?: number;
    readonly apiWarmup?: number;
    readonly serverCpus: string;
    readonly storesCpus: string;
    readonly loadgenCpus: string;
    readonly keepStore?: boolean;
    readonly loopDelay?: boolean;
    readonly manyStreams?: number;
    readonly probeWarmup?: number;
    readonly sequentialRequests?: number;
    readonly streamRequests?: number;
  };
  /**
   * Seconds of load the stream and one-at-a-time probes' fresh api served alone first
   * (`BENCH_API_WARMUP`; absent in runs before the probes were warmed).
   */
  readonly probeApiWarmupS?: number;
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly machine: string;
  readonly node: string;
  readonly outDir: string;
  readonly root: string;
  /** Each phase's SQLite store: size, ledger rows, ledger check, the api's event-loop delay. */
  readonly store: Readonly<Record<string, PhaseStore>>;
  /** 1-minute load average at the start and the end of each phase. */
  readonly loadAverage: Readonly<Record<string, readonly [number, number]>>;
  readonly profile: { readonly file: string; readonly summary: ProfileSummary } | undefined;
  /** The on-CPU phase (absent in runs from before it existed). */
  readonly onCpu?: OnCpuRun | undefined;
  /** The many-streams phase (absent: skipped, or a run from before it existed). */
  readonly streams?: ManyStreamsResult | undefined;
  /** The same streams through a fresh floor proxy: the libraries' own memory. */
  readonly floorStreams?: ManyStreamsResult | undefined;
  /** The stage-timing phase (absent: skipped, or a run from before it existed). */
  readonly stages?: StagesRun | undefined;
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
  readonly procs: Readonly<Record<string, { readonly cpuMsPerReq: number; readonly cpuCores: number }>>;
}
interface Segment {
  readonly delayMs: number;
  readonly round: number;
  readonly target: string;
  readonly rps: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly upstreamHits: number | null;
  readonly ms: { readonly p50: number; readonly p99: number };
  readonly procs: Readonly<Record<string, { readonly cpuMsPerReq: number }>>;
}
interface HarnessResults {
  readonly aggregate: readonly Aggregate[];
  readonly segments: readonly Segment[];
}
/** One row of a stream-probe table, by column name. */
type ProbeRow = Record<string, string>;

/** The process whose CPU is charged to each target. */
const OWN_PROCESS: Readonly<Record<string, string>> = {
  direct: 'mock',
  gateway: 'api',
  portkey: 'portkey',
  floor: 'floor',
};

/** What the floor target is, said under each table it appears in. */
const FLOOR_NOTE =
  "**floor**: `bench/floor-proxy.ts`, the hops of a gateway request made with the api's own libraries and nothing else (Fastify with its default JSON parser, one `EVALSHA` per request with the admission script's shape through ioredis, auto-pipelined (the requests of one turn of the event loop share a write; the api shares a script call), one undici request to the mock, the answer parsed and serialized again; no key check, validation, billing, settlement nor metrics), on the api's CPU: what the libraries and this machine cost by themselves, so the gateway's figures above it are what its own work adds.";

/** The floor's figure beside a target's, when the run measured the floor. */
const besideFloor = (figure: string | undefined) => (figure === undefined ? '' : ` (floor: ${figure})`);

const n = (x: number | undefined, digits = 2) =>
  x === undefined || Number.isNaN(x) ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(digits);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${n(x)}`;

function readJson<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

/** The rows of the first Markdown table of a stream-probe output file. */
function probeRows(file: string): ProbeRow[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'));
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
  const [head, , ...body] = lines;
  if (head === undefined) return [];
  const names = cells(head);
  return body.map((line) =>
    Object.fromEntries(cells(line).map((value, i) => [names[i] ?? String(i), value])),
  );
}

interface Verdict {
  readonly what: string;
  readonly measured: string;
  readonly met: boolean | undefined;
  readonly gap: string;
}

/** Below the defaults of duration, rounds or first warm-up: a smoke run, said so at the top. */
function shortened(info: RunInfo): boolean {
  const s = info.settings;
  return s.duration < 10 || s.rounds < 3 || s.warmupFirst < 20;
}

/** The billing scripts' Redis time and commands per ledger row. */
function formatRedisWork(work: RedisWork | null | undefined, ledgerRows: number | undefined): string {
  if (work === undefined || work === null || ledgerRows === undefined || ledgerRows === 0) return 'n/a';
  return `${(work.scriptMicros / ledgerRows).toFixed(1)} µs / ${(work.commandsInScripts / ledgerRows).toFixed(1)}`;
}

/** Per phase: the SQLite file's size and ledger rows, the ledger check, the api's loop delay. */
function storeSection(info: RunInfo): string {
  let md = '## Store: SQLite, per phase\n\n';
  const phases = Object.entries(info.store ?? {});
  if (phases.length === 0) return `${md}No store figures in this run's info.json.\n\n`;
  md +=
    "Each phase's gateway ran on its own fresh SQLite file (node:sqlite, WAL, `synchronous = NORMAL`), nothing pruned; read read-only from outside (`bench/store-file.ts`) when the phase's load ended (the api still running) and after the api's graceful close (queued settlements written, WAL checkpointed). Ledger check: every wallet against the sum of its ledger entries on the closed file (the comparison of `npm run ledger:check`). Event-loop delay of the api during the load: `perf_hooks.monitorEventLoopDelay` (10 ms timer; the delay beyond it), loaded with `node --import bench/loop-delay-preload.ts`, the api unchanged; p50/p99 are medians over the seconds of each second's percentile.\n\n";
  md +=
    "Redis work per charge: the phase's Redis (`INFO commandstats` when the load ended, `bench/redis-work.ts`): the billing scripts' own time in Redis (their commands included) and the commands they ran, over the ledger rows at load end; every api replica's admissions and settlements share one Redis, which runs them one at a time.\n\n";
  md +=
    '| phase | file | size at load end (db + wal) | size after close | ledger rows at load end | ledger rows after close | ledger check | api event-loop delay during the load | Redis per charge: script µs / commands |\n|---|---|---|---|---|---|---|---|---|\n';
  for (const [phase, s] of phases)
    md += `| ${phase} | \`${s.file}\` | ${formatSize(s.atLoadEnd?.size)} | ${formatSize(s.afterClose?.size)} | ${s.atLoadEnd?.ledgerRows ?? 'n/a'} | ${s.afterClose?.ledgerRows ?? 'n/a'} | ${describeVerdict(s.ledgerCheck)} | ${formatLoopDelay(s.apiLoopDelay)} | ${formatRedisWork(s.redisWork, s.atLoadEnd?.ledgerRows)} |\n`;
  const differing = phases.flatMap(([phase, s]) =>
    (s.ledgerCheck?.differences ?? [])
      .slice(0, 5)
      .map((d) => `${phase}: account ${d.accountId} wallet ${d.balance} µIRT, ledger ${d.ledger} µIRT`),
  );
  if (differing.length > 0)
    md += `\nWallets that differ from their ledger (first 5 per phase): ${differing.join('; ')}.\n`;
  return `${md}\n`;
}

/** RSS bound of the api with 1,000 streams open (the hot-path issue). */
const MANY_STREAMS_RSS_MB = 200;

function manyStreamsSection(
  r: ManyStreamsResult,
  floor: ManyStreamsResult | undefined,
  verdicts: Verdict[],
): string {
  verdicts.push({
    what: `${r.count} concurrent streams: api RSS < ${MANY_STREAMS_RSS_MB} MB, all answered`,
    measured: `peak ${n(r.rssPeakMb)} MB (${n(r.rssBeforeMb)} MB before), ${r.ok}/${r.count} ok${besideFloor(floor && `peak ${n(floor.rssPeakMb)} MB, ${n(floor.rssBeforeMb)} before`)}`,
    met: r.rssPeakMb < MANY_STREAMS_RSS_MB && r.failed === 0,
    gap:
      r.rssPeakMb < MANY_STREAMS_RSS_MB
        ? r.failed === 0
          ? '–'
          : `${r.failed} failed`
        : `${n(r.rssPeakMb - MANY_STREAMS_RSS_MB)} MB over`,
  });
  let md = `\n## ${r.count} streams open at once\n\n`;
  md += `\`bench/many-streams.ts\`, on a fresh api: ${PROBES} streams opened one after the other (each once the previous one's first token came: the first token of a stream alone), then ${r.count} streamed requests started together, then, once all of them had their first token, ${PROBES} more one after the other while they were open (the first token of a stream amid ${r.count} open ones), and ${PROBES} more once they had all ended (a stream alone again, on the api now warm). The mock sends 20 chunks 250 ms apart, so a stream stays open about 5 s. The api's memory: VmRSS sampled every 50 ms and the kernel's peak (VmHWM). First token: from the request sent to the first bytes of the answer.\n\n`;
  if (floor !== undefined)
    md += `The same on a fresh floor proxy (the load tables' floor, relaying the upstream's bytes): what the libraries alone hold with the streams open.\n\n`;
  md +=
    '| target | streams | ok | failed | RSS before MB | RSS peak MB | TTFT alone p50 ms: fresh / warm | TTFT amid the open streams p50 ms (still open) | burst TTFT p50 ms | burst TTFT p99 ms | burst TTFT max ms | wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n';
  for (const [target, row] of [
    ['gateway (api)', r],
    ['floor', floor],
  ] as const) {
    if (row === undefined) continue;
    md += `| ${target} | ${row.count} | ${row.ok} | ${row.failed} | ${n(row.rssBeforeMb)} | ${n(row.rssPeakMb)} | ${n(row.aloneTtftMs)} / ${n(row.aloneAfterTtftMs)} | ${n(row.amidTtftMs)} (${row.openAmid}) | ${n(row.ttftP50Ms)} | ${n(row.ttftP99Ms)} | ${n(row.ttftMaxMs)} | ${n(row.wallS)} |\n`;
  }
  if (r.firstFailure !== undefined) md += `\nFirst failure: \`${r.firstFailure.replaceAll('`', "'")}\`\n`;
  if (r.probesFailed > 0)
    md += `\n${r.probesFailed} of the ${r.probes} probe streams failed (their first tokens left out); the first: \`${(r.firstProbeFailure ?? '').replaceAll('`', "'")}\`\n`;
  return md;
}

export function writeResults(info: RunInfo): string {
  const rel = (path: string) => relative(info.root, path);
  const runs = info.settings.delays.map((delay) => ({
    delay,
    dir: join(info.outDir, `load-${delay}`),
    results: readJson<HarnessResults>(join(info.outDir, `load-${delay}`, 'results.json')),
  }));
  const sse = probeRows(join(info.outDir, 'stream-sse.md'));
  const sseSequential = probeRows(join(info.outDir, 'stream-sse-sequential.md'));
  const sse100 = probeRows(join(info.outDir, 'stream-sse-100.md'));
  const sequential = probeRows(join(info.outDir, 'stream-sequential.md'));
  const profileLoad = readJson<HarnessResults>(join(info.outDir, 'profile-load', 'results.json'));
  const find = (delay: number, target: string) =>
    runs.find((r) => r.delay === delay)?.results?.aggregate.find((a) => a.target === target);
  const verdicts: Verdict[] = [];

  let md = '# Benchmark: the gateway beside its upstream called directly, and beside Portkey\n\n';
  md += `Produced by \`${info.command}\` (${(info.elapsedS / 60).toFixed(1)} min), started ${info.startedAt}.\n\n`;
  md += `- Machine: ${info.machine}; Node ${info.node}; load generator wrk 4.1.0 (Debian), 1 thread.\n`;
  md += `- Measured tree: ${info.tree}. Peer: @portkey-ai/gateway ${info.portkeyVersion} (npm build, stock).\n`;
  md += `- **Store: SQLite (node:sqlite, WAL) file \`${rel(join(info.outDir, 'stores'))}/<phase>/gateway.db\`, a fresh one for each phase (the store \`npm start\` uses: \`SQLITE_PATH\` set, \`MONGO_URL\` unset), on the host's disk, inside the api's process (so on the server CPU); nothing pruned.** Redis: an empty \`redis-server\` per phase (in memory), pinned to CPU ${info.settings.storesCpus || 'none (unpinned)'}. Per-phase figures: section "Store".\n`;
  if (shortened(info))
    md += `- **Shortened run** (segments of ${info.settings.duration} s × ${info.settings.rounds} rounds, first warm-up ${info.settings.warmupFirst} s, against 10 s × 3 and 20 s by default): a smoke test, not comparable with full runs.\n`;
  const loads = Object.entries(info.loadAverage)
    .map(([phase, [a, b]]) => `${phase} ${a.toFixed(1)} → ${b.toFixed(1)}`)
    .join(', ');
  md += `- Machine load (1-min load average at the start → end of each phase; with nothing else running, a load phase alone brings it to about 2-3): ${loads}.\n`;
  md += `- Raw results (git-ignored): \`${rel(info.outDir)}/\`: \`load-<delay>/summary.md\` and \`results.json\` (harness output), \`*-probe.txt\`, \`stream-*.md\`, \`profile/*.cpuprofile\`, \`logs/\`.\n\n`;

  md +=
    "## Targets\n\nIssue 4, item 9; the acceptance lines of the SQLite-store issue (0 ms: ≥ 2.5 × Portkey; 50 ms: ≥ 0.95 × direct with added p50 ≤ 2 ms); and those of the hot-path issue (0 ms: ≥ 3 × Portkey and ≤ 0.15 api CPU-ms per request; sequential added p50 ≤ Portkey's; 10 streams: added TTFT p50 ≤ 2 ms; 1000 streams under 200 MB).\n\n<!-- VERDICTS -->\n\n";

  for (const { delay, dir, results } of runs) {
    md += `## Non-streaming, ${info.settings.connections} connections, ${delay} ms upstream delay\n\n`;
    if (results === undefined) {
      md += `No results (see \`${rel(dir)}\`).\n\n`;
      continue;
    }
    const direct = find(delay, 'direct');
    const portkey = find(delay, 'portkey');
    const floor = find(delay, 'floor');
    md += `Medians of ${info.settings.rounds} alternating rounds of ${info.settings.duration} s. CPU-ms/req: CPU time of the target's own process (direct: the mock; gateway: the api, SQLite included, since it runs in the api's process; Portkey: its process; floor: its process) per request sent; Redis is listed apart.${delay > 0 && (info.settings.apiWarmup ?? 0) > 0 ? ` Each phase starts a fresh api on fresh stores; before this one's warm-up it served ${info.settings.apiWarmup} s of the 0 ms load alone (\`BENCH_API_WARMUP\`): at ${delay} ms a fresh api answers too few requests a second to finish compiling its hot path within the phase, while the floor and Portkey, started once for the whole run, have served the phases before.` : ''}${floor ? ` ${FLOOR_NOTE}` : ''}\n\n`;
    md +=
      '| target | req/s | p50 ms | p99 ms | errors | CPU-ms/req | Redis CPU-ms/req | req/s vs direct | req/s vs Portkey | added p50 ms |\n';
    md += '|---|---|---|---|---|---|---|---|---|---|\n';
    for (const a of results.aggregate) {
      const own = a.procs[OWN_PROCESS[a.target] ?? '']?.cpuMsPerReq;
      const stores = a.target === 'gateway' ? n(a.procs.redis?.cpuMsPerReq, 3) : '–';
      const vsDirect = direct ? a.rps / direct.rps : Number.NaN;
      const vsPortkey = portkey ? a.rps / portkey.rps : Number.NaN;
      const added = direct ? signed(a.p50 - direct.p50) : 'n/a';
      md += `| ${a.target} | ${a.rps.toFixed(0)} | ${n(a.p50)} | ${n(a.p99)} | ${a.non2xx} | ${n(own, 3)} | ${stores} | ${n(vsDirect, 3)} | ${n(vsPortkey, 3)} | ${a.target === 'direct' ? '–' : added} |\n`;
    }
    const phaseStore = info.store?.[`load-${delay}`];
    md += `\nRound by round (req/s; the gateway's upstream hits counted at the mock, to show it proxied every request; ledger rows when the phase's load ended: ${phaseStore?.atLoadEnd?.ledgerRows ?? 'n/a'}, after the api's graceful close: ${phaseStore?.afterClose?.ledgerRows ?? 'n/a'}, none pruned; ledger check: ${describeVerdict(phaseStore?.ledgerCheck)}):\n\n`;
    md +=
      '| round | direct | gateway | gateway p50 ms | gateway errors | gateway upstream hits / ok | Portkey | floor |\n|---|---|---|---|---|---|---|---|\n';
    for (let round = 1; round <= info.settings.rounds; round++) {
      const seg = (target: string) =>
        results.segments.find((s) => s.round === round && s.target === target && s.delayMs === delay);
      const gw = seg('gateway');
      md += `| ${round} | ${seg('direct')?.rps.toFixed(0) ?? 'n/a'} | ${gw?.rps.toFixed(0) ?? 'n/a'} | ${n(gw?.ms.p50)} | ${gw ? gw.non2xx + gw.socketErrors : 'n/a'} | ${gw?.upstreamHits ?? 'n/a'} / ${gw?.ok ?? 'n/a'} | ${seg('portkey')?.rps.toFixed(0) ?? 'n/a'} | ${seg('floor')?.rps.toFixed(0) ?? 'n/a'} |\n`;
    }
    const answered = results.segments
      .filter((x) => x.target === 'gateway' && x.delayMs === delay)
      .reduce((sum, x) => sum + x.ok, 0);
    md += `\nThe gateway answered ${answered} requests with 200 in the measured segments alone (warm-ups add more; the ledger rows count those too, plus one top-up per account). A charge missing from the ledger counts above was not recorded: still queued, or lost when the api stopped.\n\n`;
    const gateway = find(delay, 'gateway');
    if (gateway && direct && delay === 50) {
      const ratio = gateway.rps / direct.rps;
      const added = gateway.p50 - direct.p50;
      verdicts.push({
        what: '50 ms upstream: gateway req/s ≥ 0.95 × direct',
        measured: `${gateway.rps.toFixed(0)} vs ${direct.rps.toFixed(0)} req/s = ${ratio.toFixed(3)}${besideFloor(floor && (floor.rps / direct.rps).toFixed(3))}`,
        met: ratio >= 0.95,
        gap:
          ratio >= 0.95
            ? '–'
            : `${(0.95 * direct.rps - gateway.rps).toFixed(0)} req/s short (${ratio.toFixed(3)} of 0.95)`,
      });
      verdicts.push({
        what: '50 ms upstream: added p50 ≤ 2 ms',
        measured: `${n(gateway.p50)} vs ${n(direct.p50)} ms = ${signed(added)} ms${besideFloor(floor && `${signed(floor.p50 - direct.p50)} ms`)}`,
        met: added <= 2,
        gap: added <= 2 ? '–' : `${n(added - 2)} ms over`,
      });
    }
    if (gateway && portkey && delay === 0) {
      const ratio = gateway.rps / portkey.rps;
      for (const times of [2, 2.5, 3])
        verdicts.push({
          what: `0 ms upstream: gateway req/s ≥ ${times} × Portkey`,
          measured: `${gateway.rps.toFixed(0)} vs ${portkey.rps.toFixed(0)} req/s = ${ratio.toFixed(3)} ×${besideFloor(floor && `${(floor.rps / portkey.rps).toFixed(2)} ×`)}`,
          met: ratio >= times,
          gap: ratio >= times ? '–' : `${(times * portkey.rps - gateway.rps).toFixed(0)} req/s short`,
        });
      const cpu = gateway.procs.api?.cpuMsPerReq;
      if (cpu !== undefined)
        verdicts.push({
          what: '0 ms upstream: api CPU per request ≤ 0.15 ms',
          measured: `${n(cpu, 3)} CPU-ms/req (Portkey ${n(portkey.procs.portkey?.cpuMsPerReq, 3)})${besideFloor(floor && n(floor.procs.floor?.cpuMsPerReq, 3))}`,
          met: cpu <= 0.15,
          gap: cpu <= 0.15 ? '–' : `${n(cpu - 0.15, 3)} ms over`,
        });
    }
  }

  md += '## Streaming time to first token\n\n';
  const warmup = info.settings.probeWarmup ?? 200;
  md += `\`stream-probe.mjs\`: ${info.settings.streamRequests ?? 200} streamed requests per target (\`BENCH_STREAM_REQUESTS\`) after ${warmup} un-timed ones (\`BENCH_PROBE_WARMUP\`: each probe's phase starts a fresh api, still compiling its hot path after a few hundred requests, while Portkey and the floor have served the load phases)${probesWarmed(info) ? `, the phase's fresh api having first served ${info.probeApiWarmupS} s of streams ten at a time alone (\`BENCH_API_WARMUP\`)` : ''}, 20 chunks each sent by the mock at once, 0 ms upstream delay; on fresh stores. First 10 at a time (the harness default; a closed loop, so the gateway rows include queueing at the api), then one at a time (the latency added to the first token), then 100 at a time (1000 requests: measured, no target).${sse.some((r) => r.target === 'floor') ? " **floor**: the floor proxy of the load tables relaying the upstream's bytes as they arrive (its one Redis script call, no event parsed, translated nor checked): what a stream costs with the libraries alone." : ''}\n\n`;
  md +=
    '| concurrency | target | ok/n | req/s | TTFT p50 ms | TTFT p99 ms | total p50 ms | total p99 ms | added TTFT p50 ms |\n|---|---|---|---|---|---|---|---|---|\n';
  for (const [concurrency, rows] of [
    [10, sse],
    [1, sseSequential],
    [100, sse100],
  ] as const) {
    const base = rows.find((r) => r.target === 'direct');
    const addedTtft = (row: ProbeRow) =>
      base ? Number(row['TTFT p50 ms']) - Number(base['TTFT p50 ms']) : Number.NaN;
    const floorRow = rows.find((r) => r.target === 'floor');
    const floorAdded = floorRow && base ? addedTtft(floorRow) : undefined;
    for (const r of rows) {
      const added = addedTtft(r);
      md += `| ${concurrency} | ${r.target} | ${r['ok/n']} | ${r['req/s']} | ${r['TTFT p50 ms']} | ${r['TTFT p99 ms']} | ${r['total p50 ms']} | ${r['total p99 ms']} | ${r.target === 'direct' ? '–' : signed(added)} |\n`;
      if (r.target === 'gateway' && base && concurrency !== 100) {
        verdicts.push({
          what: `streaming, ${concurrency} at a time: added TTFT p50 ≤ 2 ms`,
          measured: `${r['TTFT p50 ms']} vs ${base['TTFT p50 ms']} ms = ${signed(added)} ms${besideFloor(floorAdded === undefined ? undefined : `${signed(floorAdded)} ms`)}`,
          met: added <= 2,
          gap: added <= 2 ? '–' : `${n(added - 2)} ms over`,
        });
      }
    }
  }
  if (info.streams !== undefined) md += manyStreamsSection(info.streams, info.floorStreams, verdicts);
  md += '\n## Sequential requests (one at a time)\n\n';
  md += `Non-streaming, concurrency 1, 0 ms upstream delay, ${info.settings.sequentialRequests ?? 200} timed requests per target after ${warmup} un-timed ones${probesWarmed(info) ? `, the phase's fresh api having first served ${info.probeApiWarmupS} s of the 0 ms load alone (\`BENCH_API_WARMUP\`; Portkey and the floor have served the phases before)` : ''} (node:http client, sub-ms resolution): the per-request latency each hop adds without queueing${sequential.some((r) => r.target === 'floor') ? ' (floor: the libraries alone, as in the load tables)' : ''}.\n\n`;
  md += '| target | ok/n | p50 ms | p99 ms | mean ms | added p50 ms |\n|---|---|---|---|---|---|\n';
  const seqDirect = sequential.find((r) => r.target === 'direct');
  const addedP50 = (r: ProbeRow | undefined) =>
    r && seqDirect ? Number(r['total p50 ms']) - Number(seqDirect['total p50 ms']) : Number.NaN;
  for (const r of sequential) {
    md += `| ${r.target} | ${r['ok/n']} | ${r['total p50 ms']} | ${r['total p99 ms']} | ${r['total mean ms']} | ${r.target === 'direct' ? '–' : signed(addedP50(r))} |\n`;
  }
  const seqGateway = addedP50(sequential.find((r) => r.target === 'gateway'));
  const seqPortkey = addedP50(sequential.find((r) => r.target === 'portkey'));
  const seqFloor = addedP50(sequential.find((r) => r.target === 'floor'));
  if (!Number.isNaN(seqGateway) && !Number.isNaN(seqPortkey))
    verdicts.push({
      what: "sequential: gateway's added p50 ≤ Portkey's",
      measured: `${signed(seqGateway)} vs ${signed(seqPortkey)} ms${besideFloor(Number.isNaN(seqFloor) ? undefined : signed(seqFloor))}`,
      met: seqGateway <= seqPortkey,
      gap: seqGateway <= seqPortkey ? '–' : `${n(seqGateway - seqPortkey)} ms over`,
    });

  md += `\n## Profile of the api under the ${info.settings.profileDelay ?? 0} ms load\n\n`;
  if (info.profile === undefined) {
    md += 'Not run (BENCH_PROFILE_SECONDS=0).\n';
  } else {
    const p = info.profile.summary;
    const seg = profileLoad?.segments[0];
    const cpuPerReq = seg?.procs.api?.cpuMsPerReq;
    md += `\`node --cpu-prof\` on a fresh api (fresh stores), ${info.settings.profileSeconds} s of the ${info.settings.profileDelay ?? 0} ms load at ${info.settings.connections} connections: ${seg ? `${seg.rps.toFixed(0)} req/s, api ${n(cpuPerReq, 3)} CPU-ms/req (SQLite included), Redis ${n(seg.procs.redis?.cpuMsPerReq, 3)} CPU-ms/req` : 'n/a'}. Profile \`${rel(info.profile.file)}\`: ${(p.busyMs / 1000).toFixed(1)} s busy of ${(p.totalMs / 1000).toFixed(1)} s ${p.windowed ? "(the load's span only: the api's start-up, its schemas compiled and modules loaded, and its shutdown left out)" : '(start-up included)'}. Shares are of the busy time, sampled on the wall clock (time the api thread spends runnable but waiting for the CPU inside a system call counts too: the mock, which shares the server CPU, runs inside the api's writes to it; the section "On-CPU time per request" counts each thread's own time).\n\n`;
    const table = (title: string, rows: readonly Share[], limit: number) => {
      let out = `**${title}**\n\n| share of busy | ms | what |\n|---|---|---|\n`;
      for (const r of rows.slice(0, limit)) out += `| ${r.pct.toFixed(1)} % | ${r.ms} | \`${r.name}\` |\n`;
      return `${out}\n`;
    };
    md += table(
      'By component (each sample charged to its innermost project or npm-package frame)',
      p.byComponent,
      12,
    );
    md += table('Project functions, inclusive (synchronous stacks only)', p.ownInclusive, 10);
    md += table('Project functions, self time', p.ownSelf, 8);
    md += table('Busiest functions of any origin, self time', p.topSelf, 8);
  }

  md += onCpuSection(
    info.onCpu,
    info.settings.serverCpus,
    info.settings.onCpuSeconds ?? 10,
    info.settings.onCpuWarmup ?? 10,
  );
  md += stageTimingSection(info.stages);
  md += storeSection(info);

  let verdictTable = '| target | measured | verdict | gap |\n|---|---|---|---|\n';
  for (const v of verdicts)
    verdictTable += `| ${v.what} | ${v.measured} | ${v.met === undefined ? 'n/a' : v.met ? '**met**' : '**not met**'} | ${v.gap} |\n`;
  md = md.replace('<!-- VERDICTS -->', verdictTable.trimEnd());

  md += `\n## How to run\n\n\`npm run bench\` (needs \`wrk\`: \`apt-get install -y wrk\`; \`redis-server\` as for \`npm start\`; about 12-13 min: these phases, about 11 min, alone with \`npm run bench:chat\`, then the media phases, alone with \`npm run bench:media\`, then the web console's pages, alone with \`npm run bench:console\`: [\`bench/CONSOLE-RESULTS.md\`](CONSOLE-RESULTS.md)). It copies the load harness, \`bench/harness/\` (its README says what each file does), to \`.local/bench-harness\` (\`npm ci\` there once), starts everything on free 127.0.0.1 ports and stops it at the end, on failure or Ctrl-C. \`node bench/report.ts bench/results/<stamp>\` rewrites this file from a run's \`info.json\`. Knobs (env): \`BENCH_REF\` (a commit to measure instead of the work tree; it must have the SQLite store), \`BENCH_WARMUP_NEXT\` (${info.settings.warmupNext} s per target before the second scenario), \`BENCH_DURATION\` (${info.settings.duration} s per segment), \`BENCH_ROUNDS\` (${info.settings.rounds}), \`BENCH_WARMUP_FIRST\` (${info.settings.warmupFirst} s per target before the first scenario), \`BENCH_WARMUP\` (${info.settings.warmup} s per target and scenario), \`BENCH_DELAYS\` (${info.settings.delays.join(',')}), \`BENCH_CONNECTIONS\` (${info.settings.connections}), \`BENCH_ACCOUNTS\` (${info.settings.accounts} × 25 keys), \`BENCH_PROFILE_SECONDS\` (${info.settings.profileSeconds}; 0 skips the profile), \`BENCH_PROFILE_DELAY\` (${info.settings.profileDelay ?? 0} ms upstream delay during the profile), \`BENCH_ONCPU_SECONDS\` (${info.settings.onCpuSeconds ?? 10} s recorded per target and case in the on-CPU phase; 0 skips it; it needs Linux \`perf\`: \`apt-get install -y linux-perf\`, and is skipped with a note without it), \`BENCH_ONCPU_DELAYS\` (${(info.settings.onCpuDelays ?? [0, 50]).join(',')}: the upstream delays of its unstreamed cases; a case of streams ten at a time follows them), \`BENCH_ONCPU_WARMUP\` (${info.settings.onCpuWarmup ?? 10} s of load on both targets before the recordings), \`BENCH_API_WARMUP\` (${info.settings.apiWarmup ?? 0} s of load on a phase's fresh api alone before it is measured: the 0 ms load before the load phases at an upstream delay${probesWarmed(info) ? ', the one-at-a-time probe' : ''} and the on-CPU cases${probesWarmed(info) ? ', streams ten at a time before the stream probes' : ''}; 0 leaves it out), \`BENCH_STAGE_SECONDS\` (${info.settings.stageSeconds ?? 0} s of load per target in the stage-timing phase; 0 skips it), \`BENCH_STAGE_DELAY\` (${info.settings.stageDelay ?? 50} ms upstream delay there), \`BENCH_KEEP_STORE\` (${info.settings.keepStore === true ? 1 : 0}; 1 keeps each phase's SQLite file in the results folder), \`BENCH_LOOP_DELAY\` (${info.settings.loopDelay === false ? 0 : 1}; 0 leaves the event-loop delay preload out of the api), \`BENCH_MANY_STREAMS\` (${info.settings.manyStreams ?? 1000}; streams held open at once, 0 skips that phase), \`BENCH_PROBE_WARMUP\` (${warmup} un-timed requests per target before each probe), \`BENCH_SEQUENTIAL_REQUESTS\` (${info.settings.sequentialRequests ?? 200} timed requests per target of the one-at-a-time probe), \`BENCH_STREAM_REQUESTS\` (${info.settings.streamRequests ?? 200} timed streams per target of the 10- and 1-at-a-time stream probes), \`SETTLEMENT_FLUSH_MS\` (passed to the api; unset: its default), \`SERVER_CPUS\` (${info.settings.serverCpus}; the api, the mock, Portkey and the floor proxy), \`LOADGEN_CPUS\` (${info.settings.loadgenCpus}), \`STORES_CPUS\` (${info.settings.storesCpus || 'unpinned'}; the phase's Redis and the floor proxy's), \`BENCH_TIME_LIMIT_S\`. The durable-store soak (the local stack of \`npm start\` under 50 clients for 5 min) is apart: \`npm run bench:soak\`, results in [\`bench/SOAK-RESULTS.md\`](SOAK-RESULTS.md).\n`;

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
