/**
 * The fuzz run's summary (stdout) and its section of docs/reliability.md: only the text between
 * `<!-- fuzz:start -->` and `<!-- fuzz:end -->` is replaced (other sections, such as "Chaos",
 * belong to other runs), the file re-read right before writing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { KNOWN_FINDINGS } from './known-findings.ts';
import { GROUPS } from './requests.ts';
import type { RunStats } from './runner.ts';

export interface FuzzReport {
  readonly date: string;
  readonly seed: number;
  readonly concurrency: number;
  readonly deadlineMs: number;
  readonly warmup: RunStats;
  readonly run: RunStats;
  readonly rss?: {
    /** After the warm-up and a full garbage collection. */
    readonly start: number;
    readonly afterRun: number;
    /** After the idle time, as it is: garbage an idle process has not collected yet included. */
    readonly afterIdle: number;
    /** After the idle time and a full garbage collection: what a leak would still hold. */
    readonly afterGc: number;
    readonly idleMs: number;
    /** (answers so far, RSS bytes) during the run. */
    readonly samples: ReadonlyArray<readonly [number, number]>;
  };
  readonly ledger: string;
  readonly ledgerOk: boolean;
  readonly durationMs: number;
  readonly appEnv: Readonly<Record<string, string>>;
  readonly errorLogLines: number;
  readonly failures: readonly string[];
}

export const START_MARK = '<!-- fuzz:start -->';
export const END_MARK = '<!-- fuzz:end -->';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const histogram = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');

/** Whether RSS after idle (and a full collection) is within 20 % of its start (measured alike). */
export function rssWithin(rss: NonNullable<FuzzReport['rss']>, ratio = 0.2): boolean {
  return rss.afterGc <= rss.start * (1 + ratio);
}

export function summaryText(report: FuzzReport): string {
  const { run } = report;
  const lines = [
    `fuzz: seed ${report.seed}, ${run.sent} requests (+${report.warmup.sent} warm-up), concurrency ${report.concurrency}, deadline ${report.deadlineMs} ms`,
    `statuses: ${histogram(run.statuses)}`,
    ...GROUPS.map(
      (g) =>
        `  ${g.padEnd(15)} ${String(run.byGroup[g].sent).padStart(5)}  ${histogram(run.byGroup[g].statuses)}`,
    ),
    `5xx: ${run.fiveXx}, answerless: ${run.answerless}, unparsable answers: ${run.violations['well-formed']}, envelope violations: ${run.violations.envelope}, missing X-Request-Id: ${run.violations['request-id']}, unfinished streams: ${run.violations['stream-done']}`,
    `warm-up: ${histogram(report.warmup.statuses)}; its 5xx ${report.warmup.fiveXx}, answerless ${report.warmup.answerless}`,
  ];
  if (report.rss !== undefined)
    lines.push(
      `api RSS: start ${mb(report.rss.start)}, after the run ${mb(report.rss.afterRun)}, after ${report.rss.idleMs / 1000} s idle ${mb(report.rss.afterIdle)}, then after a full collection ${mb(report.rss.afterGc)} (${rssWithin(report.rss) ? 'within' : 'NOT within'} 20 % of start)`,
    );
  const known = Object.entries(report.run.known);
  if (known.length > 0) lines.push(`known findings hit: ${known.map(([id, n]) => `${id} ×${n}`).join(', ')}`);
  lines.push(`ledger: ${report.ledger}`, `duration: ${(report.durationMs / 1000).toFixed(1)} s`);
  lines.push(report.failures.length === 0 ? 'PASS' : `FAIL:\n  - ${report.failures.join('\n  - ')}`);
  return lines.join('\n');
}

export function markdownSection(report: FuzzReport): string {
  const { run } = report;
  const rows = GROUPS.map((g) => `| ${g} | ${run.byGroup[g].sent} | ${histogram(run.byGroup[g].statuses)} |`);
  const examples = [...report.warmup.counterexamples, ...run.counterexamples];
  const kinds = { ...report.warmup.kinds };
  for (const [k, n] of Object.entries(run.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
  const rss = report.rss;
  const out = [
    START_MARK,
    '## Fuzz',
    '',
    '`npm run fuzz` (scripts/fuzz.ts, test/fuzz/) starts its own Redis, s3rver and SQLite file, the api and a',
    'worker as separate processes (offline: `SIMULATE_PROVIDERS=true`), makes funded accounts and keys with',
    'settings through `/admin/v1` and console sessions through `/console/api`, then sends property-based',
    'requests (fast-check) over every `/v1` endpoint, `/admin/v1`, `/console/api`, unknown paths and methods,',
    'every key carrier, hostile bodies and headers, and raw malformed HTTP over `node:net`. Properties: every',
    'answer arrives before the client deadline, its status is below 500, every 4xx is JSON in the error',
    "envelope (or the media endpoints' 422 `{message, errors}`), every error carries `X-Request-Id`, a",
    "stream ends with `data: [DONE]`; afterwards the ledger check passes and the api's RSS after idling is",
    `within 20 % of its start. A warm-up of ${report.warmup.sent} requests (another seed, checked the same way)`,
    'runs before the "start" RSS sample, so the one-time growth of a fresh process (code compiled, pools,',
    "caches and the allocator's arenas filled; measured after a collection: 166 MB after 300 requests, 210 MB",
    'after 2,000, 238 MB after 12,000) is not counted; RSS is also sampled every 1,000 answers: a leak grows through the',
    'samples, a high-water mark levels off. Both judged samples (start, after idle) are taken after a full',
    "garbage collection in the api (`HeapProfiler.collectGarbage` through the api's loopback inspector,",
    'which the run starts it with): an idle process allocates nothing, so V8 does not collect, and the',
    'heap it grew for a burst of 8 MB bodies stays committed (measured: heap 207 MB total, 65 MB used,',
    'before the collection); a leak survives the collection, garbage does not. The RSS after idle before',
    'the collection is reported too. Replay one request: `FUZZ_SEED=<seed> FUZZ_ONLY=<index> npm',
    'run fuzz`. Knobs: `FUZZ_SEED`, `FUZZ_REQUESTS`, `FUZZ_CONCURRENCY`, `FUZZ_DEADLINE_MS`, `FUZZ_WARMUP`,',
    '`FUZZ_IDLE_MS`, `FUZZ_TIME_LIMIT_S`. `npm test` runs a short version (test/fuzz/fuzz-short.test.ts,',
    '600 requests in process).',
    '',
    `Last run (${report.date}):`,
    '',
    '| figure | value |',
    '|---|---|',
    `| seed | ${report.seed} |`,
    `| requests sent | ${run.sent} (+${report.warmup.sent} warm-up, seed ${report.warmup.seed}) |`,
    `| over a raw socket (hostile framing, headers Node's client refuses, malformed HTTP) | ${run.rawTransport} |`,
    `| concurrency, client deadline | ${report.concurrency}, ${report.deadlineMs / 1000} s |`,
    `| 5xx | ${run.fiveXx} (warm-up ${report.warmup.fiveXx}) |`,
    `| answerless (no complete answer before the deadline) | ${run.answerless} (warm-up ${report.warmup.answerless}) |`,
    `| answers Node's HTTP client cannot parse | ${run.violations['well-formed']} (warm-up ${report.warmup.violations['well-formed']}) |`,
    `| 4xx not in the error envelope | ${run.violations.envelope} (warm-up ${report.warmup.violations.envelope}) |`,
    `| error answers without X-Request-Id | ${run.violations['request-id']} (warm-up ${report.warmup.violations['request-id']}) |`,
    `| streamed chat answers / not ending with [DONE] | ${run.streams} / ${run.violations['stream-done']} |`,
    `| slowest answer | ${(run.maxMs / 1000).toFixed(1)} s |`,
    rss === undefined
      ? '| api RSS | not measured |'
      : `| api RSS: start (collected) / after the run / after ${rss.idleMs / 1000} s idle / then collected | ${mb(rss.start)} / ${mb(rss.afterRun)} / ${mb(rss.afterIdle)} / ${mb(rss.afterGc)} (${rssWithin(rss) ? 'within' : '**not** within'} 20 % of start: ${(((rss.afterGc - rss.start) / rss.start) * 100).toFixed(1)} %) |`,
    `| error log lines (api, worker) | ${report.errorLogLines} |`,
    `| ledger check | ${report.ledger} |`,
    `| duration | ${(report.durationMs / 1000).toFixed(0)} s |`,
    `| verdict | ${report.failures.length === 0 ? 'pass' : `**fail**: ${report.failures.join('; ')}`} |`,
    '',
    `Status histogram: ${histogram(run.statuses)}.`,
    '',
    rss === undefined
      ? ''
      : `api RSS during the run, every 1,000 answers (MB): ${rss.samples.map(([, b]) => (b / 1048576).toFixed(0)).join(', ')}.`,
    '',
    '| endpoint group | requests | statuses |',
    '|---|---|---|',
    ...rows,
    '',
    `Environment of the api and worker besides the stores: ${Object.entries(report.appEnv)
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ')}.`,
    '',
  ];
  const hit = KNOWN_FINDINGS.map((f) => ({
    f,
    n: (report.warmup.known[f.id] ?? 0) + (run.known[f.id] ?? 0),
  })).filter(({ n }) => n > 0);
  if (hit.length > 0) {
    out.push('Findings (test/fuzz/known-findings.ts; requests of the run and warm-up that hit each):', '');
    for (const { f, n } of hit) out.push(`- **${f.id}** (${n}): ${f.summary}`);
    out.push('');
  }
  if (examples.length > 0) {
    out.push(
      'Failing requests, by kind (group, method, status, property, [finding]) and count; first examples:',
      '',
    );
    for (const [kind, n] of Object.entries(kinds).sort(([, a], [, b]) => b - a))
      out.push(`- \`${kind}\`: ${n}`);
    out.push('');
    for (const e of examples.slice(0, 40)) {
      out.push(
        `- seed ${e.seed} index ${e.index} (${e.group}, ${e.transport}): ${e.violations.map((v) => v.property).join(', ')}${e.known === undefined ? ' — **not a known finding**' : ` [${e.known}]`}`,
        `  - request: \`${e.request.replaceAll('`', "'")}\``,
        `  - answer: \`${e.answer.replaceAll('`', "'").replaceAll('\n', ' ')}\``,
      );
    }
    out.push('');
  }
  out.push(END_MARK);
  return out.join('\n');
}

/** Replaces the fuzz section of `file` (or appends it; creates the file when missing). */
export function writeSection(file: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Reliability\n';
  const start = current.indexOf(START_MARK);
  const end = current.indexOf(END_MARK);
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + section + current.slice(end + END_MARK.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}
