/**
 * Writes bench/RESULTS.md from one run's raw results (the harness's results.json and probe tables,
 * the profile summary). The hand-written analysis between the ANALYSIS markers of the previous
 * RESULTS.md is kept as it is, so re-running the bench refreshes the numbers, not the commentary.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeKeepingAnalysis } from './kept-analysis.ts';
import type { ProfileSummary, Share } from './profile-summary.ts';
import type { LedgerCost } from './store-probe.ts';
import type { PrunerReport } from './store-pruner.ts';

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
    readonly serverCpus: string;
    readonly storesCpus: string;
    readonly loadgenCpus: string;
    readonly pruneStore?: boolean;
  };
  readonly startedAt: string;
  readonly elapsedS: number;
  readonly machine: string;
  readonly node: string;
  readonly outDir: string;
  readonly root: string;
  /** Ledger entries of each phase's store: when its load ended, and after the api's graceful close. */
  readonly ledger: Record<string, { readonly atEnd: number | null; readonly afterClose: number | null }>;
  /** What the store pruner removed per phase, and its wallet check (absent when pruning was off). */
  readonly pruned?: Record<string, PrunerReport>;
  /** 1-minute load average at the start and the end of each phase. */
  readonly loadAverage: Readonly<Record<string, readonly [number, number]>>;
  readonly profile: { readonly file: string; readonly summary: ProfileSummary } | undefined;
  readonly ledgerCost: readonly LedgerCost[] | undefined;
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
const OWN_PROCESS: Readonly<Record<string, string>> = { direct: 'mock', gateway: 'api', portkey: 'portkey' };

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

export function writeResults(info: RunInfo): string {
  const rel = (path: string) => relative(info.root, path);
  const runs = info.settings.delays.map((delay) => ({
    delay,
    dir: join(info.outDir, `load-${delay}`),
    results: readJson<HarnessResults>(join(info.outDir, `load-${delay}`, 'results.json')),
  }));
  const sse = probeRows(join(info.outDir, 'stream-sse.md'));
  const sseSequential = probeRows(join(info.outDir, 'stream-sse-sequential.md'));
  const sequential = probeRows(join(info.outDir, 'stream-sequential.md'));
  const profileLoad = readJson<HarnessResults>(join(info.outDir, 'profile-load', 'results.json'));
  const find = (delay: number, target: string) =>
    runs.find((r) => r.delay === delay)?.results?.aggregate.find((a) => a.target === target);
  const verdicts: Verdict[] = [];

  let md = '# Benchmark: the gateway beside its upstream called directly, and beside Portkey\n\n';
  md += `Produced by \`${info.command}\` (${(info.elapsedS / 60).toFixed(1)} min), started ${info.startedAt}.\n\n`;
  md += `- Machine: ${info.machine}; Node ${info.node}; load generator wrk 4.1.0 (Debian), 1 thread.\n`;
  md += `- Measured tree: ${info.tree}. Peer: @portkey-ai/gateway ${info.portkeyVersion} (npm build, stock).\n`;
  const loads = Object.entries(info.loadAverage)
    .map(([phase, [a, b]]) => `${phase} ${a.toFixed(1)} → ${b.toFixed(1)}`)
    .join(', ');
  md += `- Machine load (1-min load average at the start → end of each phase; with nothing else running, a load phase alone brings it to about 2-3): ${loads}.\n`;
  md += `- Raw results (git-ignored): \`${rel(info.outDir)}/\`: \`load-<delay>/summary.md\` and \`results.json\` (harness output), \`*-probe.txt\`, \`stream-*.md\`, \`profile/*.cpuprofile\`, \`logs/\`.\n\n`;

  md += '## Targets of issue 4, item 9\n\n<!-- VERDICTS -->\n\n';

  for (const { delay, dir, results } of runs) {
    md += `## Non-streaming, ${info.settings.connections} connections, ${delay} ms upstream delay\n\n`;
    if (results === undefined) {
      md += `No results (see \`${rel(dir)}\`).\n\n`;
      continue;
    }
    const direct = find(delay, 'direct');
    const portkey = find(delay, 'portkey');
    md += `Medians of ${info.settings.rounds} alternating rounds of ${info.settings.duration} s. CPU-ms/req: CPU time of the target's own process (direct: the mock; gateway: the api; Portkey: its process) per request sent; the gateway's stores are listed apart.\n\n`;
    md +=
      '| target | req/s | p50 ms | p99 ms | errors | CPU-ms/req | stores CPU-ms/req (Redis + jongodb) | req/s vs direct | req/s vs Portkey | added p50 ms |\n';
    md += '|---|---|---|---|---|---|---|---|---|---|\n';
    for (const a of results.aggregate) {
      const own = a.procs[OWN_PROCESS[a.target] ?? '']?.cpuMsPerReq;
      const stores =
        a.target === 'gateway'
          ? `${n(a.procs.redis?.cpuMsPerReq, 3)} + ${n(a.procs.jongodb?.cpuMsPerReq, 3)}`
          : '–';
      const vsDirect = direct ? a.rps / direct.rps : Number.NaN;
      const vsPortkey = portkey ? a.rps / portkey.rps : Number.NaN;
      const added = direct ? signed(a.p50 - direct.p50) : 'n/a';
      md += `| ${a.target} | ${a.rps.toFixed(0)} | ${n(a.p50)} | ${n(a.p99)} | ${a.non2xx} | ${n(own, 3)} | ${stores} | ${n(vsDirect, 3)} | ${n(vsPortkey, 3)} | ${a.target === 'direct' ? '–' : added} |\n`;
    }
    const pruned = info.pruned?.[`load-${delay}`];
    const prunedNote =
      pruned === undefined
        ? ''
        : `; finished entries removed by the store pruner during the phase: ${pruned.prunedEntries}, and at the end ${pruned.differences.length === 0 ? `every wallet (${pruned.wallets}) equals the sum of its entries, removed ones included` : `${pruned.differences.length} of ${pruned.wallets} wallets DIFFER from their entries`}`;
    md += `\nRound by round (req/s; the gateway's upstream hits counted at the mock, to show it proxied every request; ledger entries when the phase's load ended: ${info.ledger[`load-${delay}`]?.atEnd ?? 'n/a'}, after the api's graceful close: ${info.ledger[`load-${delay}`]?.afterClose ?? 'n/a'}${prunedNote}):\n\n`;
    md +=
      '| round | direct | gateway | gateway p50 ms | gateway errors | gateway upstream hits / ok | Portkey |\n|---|---|---|---|---|---|---|\n';
    for (let round = 1; round <= info.settings.rounds; round++) {
      const seg = (target: string) =>
        results.segments.find((s) => s.round === round && s.target === target && s.delayMs === delay);
      const gw = seg('gateway');
      md += `| ${round} | ${seg('direct')?.rps.toFixed(0) ?? 'n/a'} | ${gw?.rps.toFixed(0) ?? 'n/a'} | ${n(gw?.ms.p50)} | ${gw ? gw.non2xx + gw.socketErrors : 'n/a'} | ${gw?.upstreamHits ?? 'n/a'} / ${gw?.ok ?? 'n/a'} | ${seg('portkey')?.rps.toFixed(0) ?? 'n/a'} |\n`;
    }
    const answered = results.segments
      .filter((x) => x.target === 'gateway' && x.delayMs === delay)
      .reduce((sum, x) => sum + x.ok, 0);
    md += `\nThe gateway answered ${answered} requests with 200 in the measured segments alone (warm-ups add more). A charge missing from the ledger counts above was not recorded: still queued, or lost when the api stopped.\n\n`;
    const gateway = find(delay, 'gateway');
    if (gateway && direct && delay === 50) {
      const ratio = gateway.rps / direct.rps;
      const added = gateway.p50 - direct.p50;
      verdicts.push({
        what: '50 ms upstream: gateway req/s ≥ 0.95 × direct',
        measured: `${gateway.rps.toFixed(0)} vs ${direct.rps.toFixed(0)} req/s = ${ratio.toFixed(3)}`,
        met: ratio >= 0.95,
        gap:
          ratio >= 0.95
            ? '–'
            : `${(0.95 * direct.rps - gateway.rps).toFixed(0)} req/s short (${ratio.toFixed(3)} of 0.95)`,
      });
      verdicts.push({
        what: '50 ms upstream: added p50 ≤ 2 ms',
        measured: `${n(gateway.p50)} vs ${n(direct.p50)} ms = ${signed(added)} ms`,
        met: added <= 2,
        gap: added <= 2 ? '–' : `${n(added - 2)} ms over`,
      });
    }
    if (gateway && portkey && delay === 0) {
      const ratio = gateway.rps / portkey.rps;
      verdicts.push({
        what: '0 ms upstream: gateway req/s ≥ 2 × Portkey',
        measured: `${gateway.rps.toFixed(0)} vs ${portkey.rps.toFixed(0)} req/s = ${ratio.toFixed(3)} ×`,
        met: ratio >= 2,
        gap: ratio >= 2 ? '–' : `${(2 * portkey.rps - gateway.rps).toFixed(0)} req/s short`,
      });
    }
  }

  md += '## Streaming time to first token\n\n';
  md +=
    '`stream-probe.mjs`: 200 streamed requests per target after 200 un-timed ones, 20 chunks each sent by the mock at once, 0 ms upstream delay; on fresh stores. First 10 at a time (the harness default; a closed loop, so the gateway rows include queueing at the api), then one at a time (the latency added to the first token).\n\n';
  md +=
    '| concurrency | target | ok/n | req/s | TTFT p50 ms | TTFT p99 ms | total p50 ms | total p99 ms | added TTFT p50 ms |\n|---|---|---|---|---|---|---|---|---|\n';
  for (const [concurrency, rows] of [
    [10, sse],
    [1, sseSequential],
  ] as const) {
    const base = rows.find((r) => r.target === 'direct');
    for (const r of rows) {
      const added = base ? Number(r['TTFT p50 ms']) - Number(base['TTFT p50 ms']) : Number.NaN;
      md += `| ${concurrency} | ${r.target} | ${r['ok/n']} | ${r['req/s']} | ${r['TTFT p50 ms']} | ${r['TTFT p99 ms']} | ${r['total p50 ms']} | ${r['total p99 ms']} | ${r.target === 'direct' ? '–' : signed(added)} |\n`;
      if (r.target === 'gateway' && base) {
        verdicts.push({
          what: `streaming, ${concurrency} at a time: added TTFT p50 ≤ 2 ms`,
          measured: `${r['TTFT p50 ms']} vs ${base['TTFT p50 ms']} ms = ${signed(added)} ms`,
          met: added <= 2,
          gap: added <= 2 ? '–' : `${n(added - 2)} ms over`,
        });
      }
    }
  }
  md += '\n## Sequential requests (one at a time)\n\n';
  md +=
    'Non-streaming, concurrency 1, 0 ms upstream delay, 200 timed requests per target (node:http client, sub-ms resolution): the per-request latency each hop adds without queueing.\n\n';
  md += '| target | ok/n | p50 ms | p99 ms | mean ms | added p50 ms |\n|---|---|---|---|---|---|\n';
  const seqDirect = sequential.find((r) => r.target === 'direct');
  for (const r of sequential) {
    const added = seqDirect ? Number(r['total p50 ms']) - Number(seqDirect['total p50 ms']) : Number.NaN;
    md += `| ${r.target} | ${r['ok/n']} | ${r['total p50 ms']} | ${r['total p99 ms']} | ${r['total mean ms']} | ${r.target === 'direct' ? '–' : signed(added)} |\n`;
  }

  md += `\n## Profile of the api under the ${info.settings.profileDelay ?? 0} ms load\n\n`;
  if (info.profile === undefined) {
    md += 'Not run (BENCH_PROFILE_SECONDS=0).\n';
  } else {
    const p = info.profile.summary;
    const seg = profileLoad?.segments[0];
    const cpuPerReq = seg?.procs.api?.cpuMsPerReq;
    md += `\`node --cpu-prof\` on a fresh api (fresh stores), ${info.settings.profileSeconds} s of the ${info.settings.profileDelay ?? 0} ms load at ${info.settings.connections} connections: ${seg ? `${seg.rps.toFixed(0)} req/s, api ${n(cpuPerReq, 3)} CPU-ms/req, jongodb ${n(seg.procs.jongodb?.cpuMsPerReq, 3)} CPU-ms/req` : 'n/a'}. Profile \`${rel(info.profile.file)}\`: ${(p.busyMs / 1000).toFixed(1)} s busy of ${(p.totalMs / 1000).toFixed(1)} s (start-up included). Shares are of the busy time, sampled on the wall clock (time the api thread spends runnable but waiting for the CPU inside a system call counts too).\n\n`;
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

  md += '## Ledger calls on the MongoDB-wire store (jongodb) as the ledger grows\n\n';
  if (info.ledgerCost === undefined) {
    md += 'Not run (BENCH_STORE_PROBE=0).\n\n';
  } else {
    md +=
      "`bench/store-probe.ts`: the gateway's own ledger repository calls, one at a time on an otherwise idle jongodb, on a ledger filled with charge-shaped entries (median of 7 calls; ms). Every settlement batch makes the first three whatever its size. This growth is why the load phases run with `bench/store-pruner.ts` (unless `BENCH_PRUNE_STORE=0`): it removes finished (closed) entries while the load runs, keeping their sums, so that the store behaves like an indexed one; the wallet check at each phase's end counts the removed entries.\n\n";
    md +=
      '| ledger entries | insertPending | markApplied | close | findById | sum of the three writes |\n|---|---|---|---|---|---|\n';
    for (const r of info.ledgerCost) {
      const writes = r.ms.insertPending + r.ms.markApplied + r.ms.close;
      md += `| ${r.entries} | ${n(r.ms.insertPending)} | ${n(r.ms.markApplied)} | ${n(r.ms.close)} | ${n(r.ms.findById)} | ${n(writes)} |\n`;
    }
    md += '\n';
  }

  let verdictTable = '| target | measured | verdict | gap |\n|---|---|---|---|\n';
  for (const v of verdicts)
    verdictTable += `| ${v.what} | ${v.measured} | ${v.met === undefined ? 'n/a' : v.met ? '**met**' : '**not met**'} | ${v.gap} |\n`;
  md = md.replace('<!-- VERDICTS -->', verdictTable.trimEnd());

  md += `\n## How to run\n\n\`npm run bench\` (needs \`wrk\`: \`apt-get install -y wrk\`; \`redis-server\` as for \`npm start\`; about 7 min: these phases, about 5-6 min, alone with \`npm run bench:chat\`, then the media phases, alone with \`npm run bench:media\`). It copies \`../shared/bench\` to \`.local/bench-harness\` (npm install there once), starts everything on free 127.0.0.1 ports and stops it at the end, on failure or Ctrl-C. \`node bench/report.ts bench/results/<stamp>\` rewrites this file from a run's \`info.json\`. Knobs (env): \`BENCH_REF\` (a commit to measure instead of the work tree), \`BENCH_STORE_PROBE\` (0 skips the ledger probe), \`BENCH_WARMUP_NEXT\` (${info.settings.warmupNext} s per target before the second scenario), \`BENCH_DURATION\` (${info.settings.duration} s per segment), \`BENCH_ROUNDS\` (${info.settings.rounds}), \`BENCH_WARMUP_FIRST\` (${info.settings.warmupFirst} s per target before the first scenario), \`BENCH_WARMUP\` (${info.settings.warmup} s per target and scenario), \`BENCH_DELAYS\` (${info.settings.delays.join(',')}), \`BENCH_CONNECTIONS\` (${info.settings.connections}), \`BENCH_ACCOUNTS\` (${info.settings.accounts} × 25 keys), \`BENCH_PROFILE_SECONDS\` (${info.settings.profileSeconds}; 0 skips the profile), \`BENCH_PROFILE_DELAY\` (${info.settings.profileDelay ?? 0} ms upstream delay during the profile), \`BENCH_PRUNE_STORE\` (${info.settings.pruneStore === false ? 0 : 1}; 0 keeps every ledger entry, see the store section), \`SETTLEMENT_FLUSH_MS\` (passed to the api; unset: its default), \`SERVER_CPUS\` (${info.settings.serverCpus}), \`LOADGEN_CPUS\` (${info.settings.loadgenCpus}), \`STORES_CPUS\` (${info.settings.storesCpus || 'unpinned'}), \`BENCH_TIME_LIMIT_S\`.\n`;

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
