/**
 * The chaos run's report: a summary for the terminal, and the "Chaos" section of
 * docs/reliability.md (only the text between `<!-- chaos:start -->` and `<!-- chaos:end -->` is
 * replaced; the rest of the file belongs to others).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { KINDS } from './load.ts';
import type { ChaosResult } from './run-chaos.ts';

export const CHAOS_START = '<!-- chaos:start -->';
export const CHAOS_END = '<!-- chaos:end -->';

const mb = (bytes: number | null) => (bytes === null ? 'gone' : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Status labels in a stable order: successes, client errors, 5xx, failures. */
function statusLabels(result: ChaosResult): string[] {
  const labels = new Set<string>();
  for (const row of Object.values(result.figures.histogram))
    for (const label of Object.keys(row)) labels.add(label);
  const rank = (label: string) =>
    label === 'conn-fail'
      ? 900
      : label === 'timeout'
        ? 950
        : Number.parseInt(label, 10) + (label.includes('(') ? 0.5 : 0);
  return [...labels].sort((a, b) => rank(a) - rank(b));
}

export function checks(result: ChaosResult): Array<[string, string]> {
  const f = result.figures;
  const byReplica = Object.entries(f.connectionFailuresByReplica)
    .map(([name, n]) => `${name}: ${n}`)
    .join(', ');
  return [
    ['jobs lost', String(f.jobsLost)],
    ['double charges', String(f.doubleCharges)],
    [
      'videos final',
      `${f.videos.completed + f.videos.failed} of ${f.videos.created} (completed ${f.videos.completed}, failed ${f.videos.failed}, not final ${f.videos.notFinal})`,
    ],
    ['media jobs not final (store)', `${f.mediaJobs.notFinal} of ${f.mediaJobs.total}`],
    [
      'holds left after the leases',
      `${f.holds.live} (hold sets ${f.holds.sets}, expired members not yet dropped ${f.holds.members - f.holds.live})`,
    ],
    ['ledger check', `${f.ledgerCheck.verdict} (exit ${f.ledgerCheck.code})`],
    ['5xx from live processes', `${f.fivexx} (500: ${f.status500})`],
    ['503 with Retry-After while Redis was down', String(f.redisDown503WithRetryAfter)],
    ['connection failures at kills', `${f.connectionFailuresAtKills}${byReplica ? ` (${byReplica})` : ''}`],
    [
      'transcription uploads cut while Redis was down (EPIPE/ECONNRESET: refused before read, `Connection: close`)',
      String(f.uploadsCutByEarly503),
    ],
    ['charges without a successful answer', String(f.chargesWithoutSuccess)],
    [
      'videos whose POST was cut by an api kill, completed and charged anyway (found only via GET /v1/videos)',
      String(f.orphanVideosCharged),
    ],
    ['answered, not charged: api killed within 2 s (accepted under-charge)', String(f.underChargedAtKills)],
    ['charges written', String(f.charges)],
  ];
}

export function summaryText(result: ChaosResult): string {
  const f = result.figures;
  const lines = [
    `chaos run ${result.startedAt}: ${f.violations.length === 0 ? 'PASS' : `FAIL (${f.violations.length} violations)`}`,
    `requests ${f.requests} in ${s(result.loadMs)}: ${KINDS.map((k) => `${k} ${f.byKind[k] ?? 0}`).join(', ')}`,
    ...checks(result).map(([name, value]) => `  ${name}: ${value}`),
    ...result.rss.map(
      (r) =>
        `  RSS ${r.name}: before ${mb(r.before.bytes)} (pid ${r.before.pid}), after ${mb(r.after.bytes)} (pid ${r.after.pid}), peak ${mb(r.peakBytes)}, ${r.starts} starts`,
    ),
    `  settled in ${s(result.settleMs)}; whole run ${s(result.durationMs)}`,
  ];
  if (f.violations.length > 0) {
    lines.push('violations:');
    for (const v of f.violations.slice(0, 100)) lines.push(`  - ${v}`);
    if (f.violations.length > 100) lines.push(`  … and ${f.violations.length - 100} more`);
  }
  if (result.scratchKept) lines.push(`scratch folder kept: ${result.scratchDir} (logs/, gateway.db)`);
  return lines.join('\n');
}

export function markdownSection(result: ChaosResult): string {
  const f = result.figures;
  const o = result.options;
  const out: string[] = [];
  out.push(
    `Last run: ${result.startedAt} — **${f.violations.length === 0 ? 'PASS' : `FAIL, ${f.violations.length} violation(s)`}** ` +
      `(written by \`npm run chaos\`, \`scripts/chaos.ts\`; a short version runs in \`npm test\`: ` +
      '`test/chaos/chaos-short.test.ts`).',
    '',
    `Setup: the default store (one SQLite file shared by every process), ${o.apis} api replicas ` +
      `(\`node api/src/main.ts\`), ${o.workers} worker processes (\`node workers/src/main.ts\`), the run's own ` +
      'redis-server (append-only file) and s3rver, `SIMULATE_PROVIDERS=true`; ' +
      `\`HOLD_LEASE_MS=${o.holdLeaseMs}\`, \`RECONCILE_INTERVAL_MS=${o.reconcileIntervalMs}\`, ` +
      `\`DEMO_VIDEO_RENDER_MS=${o.demoVideoRenderMs}\`, \`MEDIA_WAIT_TIMEOUT_MS=${o.mediaWaitTimeoutMs}\`, ` +
      `\`VIDEO_DEADLINE_MS=${o.videoDeadlineMs}\`, \`WORKER_LOCK_DURATION_MS=${o.workerLockMs}\`, ` +
      `\`WORKER_STALLED_INTERVAL_MS=${o.workerStalledIntervalMs}\`. Load: ${o.clients} clients in closed loops ` +
      `(${o.thinkMs} ms between requests, ${o.backoffMs} ms after a 503) across the replicas for ${s(result.loadMs)}, ` +
      `seed ${o.seed}. Settled in ${s(result.settleMs)}; whole run ${s(result.durationMs)}.`,
    '',
    'Checked once the load stopped and the system settled (every video and media job final, bounded), then ' +
      'one hold lease later: every video a client got a 202 for answers `completed` or `failed`; no `media_jobs` ' +
      'row is left `queued`/`running` (or `completed` for a synchronous kind); every 200/202 media request has a ' +
      'job in a final state (jobs lost); no ledger id twice and no request charged under two ids (double charges); ' +
      'every charge belongs to a successful answer or a completed video, at the cost the answer stated; no hold ' +
      'with a lease still running in Redis; `node scripts/ledger-check.ts` exits 0; 5xx answered by processes that ' +
      'were not being killed, apart from 503 with `Retry-After` while Redis was down. A violation fails the run ' +
      '(exit 1) and is listed below with what the processes logged about its ids.',
    '',
    '| check | result |',
    '|---|---|',
    ...checks(result).map(([name, value]) => `| ${name} | ${value} |`),
    '',
    '**Schedule** (offsets from the start of the load; each process killed with SIGKILL and started again; ' +
      'Redis stopped with SIGTERM keeps its append-only file, "empty" is SIGKILL and its data deleted):',
    '',
    '| at | planned | event | killed pid(s) | new pid(s) | down |',
    '|---|---|---|---|---|---|',
    ...result.events.map(
      (e) =>
        `| ${s(e.atMs)} (${e.at}) | ${s(e.plannedMs)} | ${e.action} ${e.targets.join(' + ')} | ${e.killedPids.join(', ')} | ${e.newPids.join(', ')} | ${e.downMs === undefined ? '?' : s(e.downMs)}${e.error ? ` — ${e.error}` : ''} |`,
    ),
    '',
  );
  const labels = statusLabels(result);
  out.push(
    '**Requests by kind and answer** ("503 (Redis down)": 503 with `Retry-After` while Redis was down or ' +
      `within ${s(o.redisGraceMs)} of its return; "conn-fail": no answer, the process was killed meanwhile):`,
    '',
    `| kind | sent | ${labels.join(' | ')} |`,
    `|---|---|${labels.map(() => '---').join('|')}|`,
    ...KINDS.map(
      (kind) =>
        `| ${kind} | ${f.byKind[kind] ?? 0} | ${labels.map((label) => f.histogram[kind]?.[label] ?? 0).join(' | ')} |`,
    ),
    `| **all** | **${f.requests}** | ${labels.map((label) => Object.values(f.histogram).reduce((n, row) => n + (row[label] ?? 0), 0)).join(' | ')} |`,
    '',
    '**RSS of each api** (before: after start-up and set-up, before the load; after: once settled, before the ' +
      'stop; a replica killed during the run is a new process afterwards):',
    '',
    '| api | before | after | peak (1 s samples) | starts | every 15 s of the load (MB; – down) |',
    '|---|---|---|---|---|---|',
    ...result.rss.map(
      (r) =>
        `| ${r.name} | ${mb(r.before.bytes)} (pid ${r.before.pid}) | ${mb(r.after.bytes)} (pid ${r.after.pid}) | ${mb(r.peakBytes)} | ${r.starts} | ${r.samples.map((b) => (b === null ? '–' : Math.round(b / 1024 / 1024))).join(' ')} |`,
    ),
    '',
  );
  const failures = Object.entries(f.videoFailures);
  if (failures.length > 0) {
    out.push('**Failed videos by reason:**', '');
    for (const [reason, n] of failures) out.push(`- ${n} × ${reason}`);
    out.push('');
  }
  out.push(
    `Media jobs in the store by kind and status: ${Object.entries(f.mediaJobs.byStatus)
      .sort()
      .map(([status, n]) => `${status} ${n}`)
      .join(', ')}.`,
    '',
  );
  if (f.violations.length === 0) out.push('Violations: none.');
  else {
    out.push('**Violations:**', '');
    for (const v of f.violations.slice(0, 60)) out.push(`- ${v}`);
    if (f.violations.length > 60) out.push(`- … and ${f.violations.length - 60} more (see the run's output)`);
  }
  return out.join('\n');
}

/**
 * Writes the section into `path`: re-reads the file right before writing and replaces only what
 * lies between the markers; appends a "Chaos" section with the markers when they are missing;
 * creates the file when it does not exist.
 */
export function writeChaosSection(path: string, section: string): void {
  const block = `${CHAOS_START}\n${section}\n${CHAOS_END}`;
  if (!existsSync(path)) {
    writeFileSync(path, `# Reliability\n\n## Chaos\n\n${block}\n`);
    return;
  }
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(CHAOS_START);
  const end = text.indexOf(CHAOS_END);
  if (start >= 0 && end > start) {
    writeFileSync(path, text.slice(0, start) + block + text.slice(end + CHAOS_END.length));
    return;
  }
  writeFileSync(path, `${text.replace(/\s*$/, '')}\n\n## Chaos\n\n${block}\n`);
}
