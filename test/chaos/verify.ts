/**
 * What a chaos run checks once the load stopped and the system settled: the store read behind the
 * gateway's back (the SQLite file, read-only), the holds left in Redis, the ledger check, and the
 * requests the clients recorded, joined into figures and violations.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { mediaJobIdFor } from '../../shared/src/media-jobs/media-jobs.repository.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { KINDS, type Kind, type SentRequest } from './load.ts';
import { ROOT } from './processes.ts';

export interface ChargeRow {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string | null;
  readonly amount: bigint;
  readonly createdAt: number;
}

export interface JobRow {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly accountId: string;
  readonly costMicros: bigint | null;
  readonly error: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A media job's status that nothing moves any more (a synchronous kind's `completed` is not). */
export function isFinalJob(kind: string, status: string): boolean {
  // A video is `cancelled` when its POST was refused (503) because it could not be queued.
  if (kind === 'video') return status === 'completed' || status === 'failed' || status === 'cancelled';
  return status === 'delivered' || status === 'discarded' || status === 'cancelled' || status === 'failed';
}

function openReadOnly(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly: true, readBigInts: true });
  db.exec('PRAGMA query_only = 1');
  return db;
}

/** Media jobs that are not final yet (`queued`, `running`, a synchronous job `completed`). */
export function unfinishedJobs(sqlitePath: string): JobRow[] {
  return readJobs(sqlitePath).filter((job) => !isFinalJob(job.kind, job.status));
}

export function readJobs(sqlitePath: string): JobRow[] {
  const db = openReadOnly(sqlitePath);
  try {
    const rows = db
      .prepare(
        'SELECT id, kind, status, account_id, cost_micros, error, created_at, updated_at FROM media_jobs',
      )
      .all() as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      id: String(row.id),
      kind: String(row.kind),
      status: String(row.status),
      accountId: String(row.account_id),
      costMicros: row.cost_micros === null ? null : BigInt(row.cost_micros as bigint),
      error: row.error === null ? null : String(row.error),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    }));
  } finally {
    db.close();
  }
}

export interface LedgerRows {
  readonly charges: ChargeRow[];
  /** Ids present more than once (the primary key forbids it: a corrupt file would show it). */
  readonly duplicateIds: string[];
  /** Per wallet: balance minus the sum of its entries (must be 0). */
  readonly walletDifferences: Array<{ accountId: string; difference: bigint }>;
}

export function readLedger(sqlitePath: string): LedgerRows {
  const db = openReadOnly(sqlitePath);
  try {
    const charges = (
      db
        .prepare("SELECT id, account_id, key_id, amount, created_at FROM ledger WHERE kind = 'charge'")
        .all() as Array<Record<string, unknown>>
    ).map((row) => ({
      id: String(row.id),
      accountId: String(row.account_id),
      keyId: row.key_id === null ? null : String(row.key_id),
      amount: BigInt(row.amount as bigint),
      createdAt: Number(row.created_at),
    }));
    const duplicateIds = (
      db.prepare('SELECT id FROM ledger GROUP BY id HAVING count(*) > 1').all() as Array<{ id: string }>
    ).map((row) => String(row.id));
    const walletDifferences = (
      db
        .prepare(
          `SELECT w.account_id AS account_id, w.balance - coalesce((SELECT sum(amount) FROM ledger l
             WHERE l.account_id = w.account_id), 0) AS difference FROM wallets w`,
        )
        .all() as Array<Record<string, unknown>>
    )
      .map((row) => ({ accountId: String(row.account_id), difference: BigInt(row.difference as bigint) }))
      .filter((row) => row.difference !== 0n);
    return { charges, duplicateIds, walletDifferences };
  } finally {
    db.close();
  }
}

export interface HoldsLeft {
  /** Hold sets (wallet and key) in Redis. */
  readonly sets: number;
  /** Members of those sets, expired or not (expired ones are dropped lazily by admission). */
  readonly members: number;
  /** Members whose lease has not passed (score > Redis TIME): must be 0. */
  readonly live: number;
  readonly liveIds: string[];
}

/** The holds left under `<prefix>:billing:holds:*`, measured against Redis's own clock. */
export async function readHolds(redisUrl: string, queuePrefix: string): Promise<HoldsLeft> {
  const redis = createRedis(redisUrl, { connectionName: 'chaos-verify' });
  try {
    const [seconds, microseconds] = (await redis.time()) as [string | number, string | number];
    const now = Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000);
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(
        cursor,
        'MATCH',
        `${queuePrefix}:billing:holds:*`,
        'COUNT',
        1000,
      );
      cursor = next;
      keys.push(...found.filter((key) => !key.endsWith(':amounts')));
    } while (cursor !== '0');
    let members = 0;
    const liveIds: string[] = [];
    for (const key of keys) {
      members += await redis.zcard(key);
      const live = await redis.zrangebyscore(key, `(${now}`, '+inf');
      liveIds.push(...live.map((id) => `${key.slice(`${queuePrefix}:billing:holds:`.length)}/${id}`));
    }
    return { sets: keys.length, members, live: liveIds.length, liveIds };
  } finally {
    redis.disconnect();
  }
}

export interface LedgerCheckRun {
  readonly code: number | null;
  readonly verdict: string;
  readonly output: string;
}

/** `node scripts/ledger-check.ts` on the run's store: exit 0 and "ledger check: consistent". */
export async function runLedgerCheck(env: NodeJS.ProcessEnv): Promise<LedgerCheckRun> {
  const child = spawn(process.execPath, ['scripts/ledger-check.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString('utf8');
  });
  child.stderr.on('data', (data: Buffer) => {
    output += data.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  const verdict = /ledger check: (.*)/.exec(output)?.[1]?.trim() ?? `no verdict (exit ${code})`;
  return { code, verdict, output };
}

// ---------------------------------------------------------------------------------------------
// The analysis

const SYNC_KINDS: Partial<Record<Kind, 'image' | 'speech' | 'transcription'>> = {
  image: 'image',
  speech: 'speech',
  transcription: 'transcription',
};

/** What the answer of a kind must be when all is well. */
const EXPECTED_STATUS: Record<Kind, number> = {
  chat: 200,
  'chat-stream': 200,
  embeddings: 200,
  image: 200,
  speech: 200,
  transcription: 200,
  video: 202,
  'video-get': 200,
};

/** The request id a ledger entry's id derives from (`img_X`, `video_X` … → `req_X`). */
export function requestIdOfEntry(id: string): string {
  return id.replace(/^(img|tts|stt|video)_/, 'req_');
}

export interface ProcessHistory {
  readonly name: string;
  /** Times the run SIGKILLed it. */
  readonly kills: readonly number[];
}

export interface AnalysisInput {
  readonly records: readonly SentRequest[];
  readonly apis: readonly ProcessHistory[];
  readonly redisOutages: ReadonlyArray<{ from: number; to: number | undefined; empty: boolean }>;
  /** After a Redis restart, how long 503s still count as "Redis down" (clients reconnecting). */
  readonly redisGraceMs: number;
  /** An answer not charged is an accepted under-charge when its api was killed within this. */
  readonly settleWindowMs: number;
  /** Final state of every video a 202 created, as GET /v1/videos/{id} answered at the end. */
  readonly videoFinal: ReadonlyMap<string, { status: string; costMicros?: bigint; error?: string }>;
  readonly jobs: readonly JobRow[];
  readonly ledger: LedgerRows;
  readonly holds: HoldsLeft;
  readonly ledgerCheck: LedgerCheckRun;
  readonly unexpectedExits: ReadonlyArray<{
    name: string;
    pid: number;
    at: number;
    code: number | null;
    signal: string | null;
  }>;
  readonly scheduleErrors: readonly string[];
  readonly startedAt: number;
}

export interface ChaosFigures {
  readonly requests: number;
  readonly byKind: Record<string, number>;
  /** kind → status label (`200`, `503`, `conn-fail`, `timeout`) → count. */
  readonly histogram: Record<string, Record<string, number>>;
  readonly connectionFailuresAtKills: number;
  readonly connectionFailuresByReplica: Record<string, number>;
  /** Transcription uploads cut (EPIPE/ECONNRESET) while Redis was down: refused before being read. */
  readonly uploadsCutByEarly503: number;
  readonly fivexx: number;
  readonly status500: number;
  readonly redisDown503WithRetryAfter: number;
  readonly jobsLost: number;
  readonly doubleCharges: number;
  readonly chargesWithoutSuccess: number;
  /** Completed, charged videos whose POST got no answer because its api was killed (listed by GET /v1/videos). */
  readonly orphanVideosCharged: number;
  readonly underChargedAtKills: number;
  readonly videos: { created: number; completed: number; failed: number; notFinal: number };
  readonly videoFailures: Record<string, number>;
  readonly mediaJobs: { total: number; notFinal: number; byStatus: Record<string, number> };
  readonly charges: number;
  readonly holds: HoldsLeft;
  readonly ledgerCheck: { code: number | null; verdict: string };
  readonly violations: string[];
}

const t = (at: number, startedAt: number) => `t=${((at - startedAt) / 1000).toFixed(1)}s`;

export function analyse(input: AnalysisInput): ChaosFigures {
  const violations: string[] = [];
  const { records, startedAt } = input;
  const killsOf = new Map(input.apis.map((api) => [api.name, api.kills]));
  const killedDuring = (record: SentRequest, before = 250, after = 250) =>
    (killsOf.get(record.replica) ?? []).some(
      (at) => at >= record.startedAt - before && at <= record.endedAt + after,
    );
  const redisDown = (record: SentRequest) =>
    input.redisOutages.some(
      (outage) =>
        record.startedAt <= (outage.to ?? Number.POSITIVE_INFINITY) + input.redisGraceMs &&
        record.endedAt >= outage.from,
    );
  const describe = (record: SentRequest) =>
    `${record.kind} #${record.seq} on ${record.replica} (pid ${record.apiPid}) ${t(record.startedAt, startedAt)}–${t(record.endedAt, startedAt)}${record.requestId ? ` ${record.requestId}` : ''}`;

  const byKind: Record<string, number> = {};
  const histogram: Record<string, Record<string, number>> = {};
  const connectionFailuresByReplica: Record<string, number> = {};
  let connectionFailuresAtKills = 0;
  let uploadsCutByEarly503 = 0;
  let fivexx = 0;
  let status500 = 0;
  let redisDown503WithRetryAfter = 0;
  /** Ledger ids a successful answer may be charged under, with the cost it stated. */
  const succeeded = new Map<string, SentRequest>();
  const unexpected: string[] = [];
  const fivexxList: string[] = [];

  for (const record of records) {
    byKind[record.kind] = (byKind[record.kind] ?? 0) + 1;
    const row = histogram[record.kind] ?? {};
    histogram[record.kind] = row;
    let label: string;
    if (record.failure !== undefined) {
      label = record.timedOut ? 'timeout' : 'conn-fail';
      if (killedDuring(record)) {
        connectionFailuresAtKills += 1;
        connectionFailuresByReplica[record.replica] = (connectionFailuresByReplica[record.replica] ?? 0) + 1;
      } else if (
        record.kind === 'transcription' &&
        !record.cutAfterHeaders &&
        /EPIPE|ECONNRESET/.test(record.failure) &&
        redisDown(record)
      ) {
        // The api refused the upload before reading it (503, Redis down) and closed the connection
        // (`Connection: close`, api/src/plugins/error-handler.ts closeIfBodyUnread): the client,
        // still writing the body, sees EPIPE/ECONNRESET instead of the 503.
        uploadsCutByEarly503 += 1;
        label = 'conn-fail (upload refused, Redis down)';
      } else {
        unexpected.push(`${label} of a live process: ${describe(record)}: ${record.failure}`);
      }
    } else {
      const status = record.status as number;
      label = String(status);
      if (status >= 500) {
        if (status === 503 && record.retryAfter !== undefined && redisDown(record)) {
          redisDown503WithRetryAfter += 1;
          label = '503 (Redis down)';
        } else {
          fivexx += 1;
          if (status === 500) status500 += 1;
          fivexxList.push(
            `${status} ${record.errorCode ?? ''}${record.retryAfter ? ` Retry-After ${record.retryAfter}` : ' (no Retry-After)'}: ${describe(record)}`,
          );
        }
      } else if (status !== EXPECTED_STATUS[record.kind]) {
        unexpected.push(`unexpected ${status} ${record.errorCode ?? ''}: ${describe(record)}`);
      } else if (
        record.kind === 'chat-stream' &&
        (record.streamError !== undefined || record.streamDone !== true)
      ) {
        unexpected.push(
          `stream ${record.streamError ? `error event "${record.streamError}"` : 'without [DONE]'}: ${describe(record)}`,
        );
      } else if (record.requestId === undefined) {
        unexpected.push(`answer without X-Request-Id: ${describe(record)}`);
      } else {
        const sync = SYNC_KINDS[record.kind];
        if (record.kind === 'chat' || record.kind === 'chat-stream' || record.kind === 'embeddings')
          succeeded.set(record.requestId, record);
        else if (sync !== undefined) succeeded.set(mediaJobIdFor(sync, record.requestId), record);
      }
    }
    row[label] = (row[label] ?? 0) + 1;
  }
  for (const line of fivexxList) violations.push(`5xx from a live process: ${line}`);
  for (const line of unexpected) violations.push(line);

  // Videos: every 202 has a job and ends completed or failed.
  const jobsById = new Map(input.jobs.map((job) => [job.id, job]));
  const videos = { created: 0, completed: 0, failed: 0, notFinal: 0 };
  const videoFailures: Record<string, number> = {};
  const createdVideos = records.filter((r) => r.kind === 'video' && r.status === 202 && r.videoId);
  let jobsLost = 0;
  for (const record of createdVideos) {
    const id = record.videoId as string;
    videos.created += 1;
    const final = input.videoFinal.get(id);
    const job = jobsById.get(id);
    if (job === undefined) {
      jobsLost += 1;
      violations.push(`job lost: video ${id} (202 to ${describe(record)}) has no job record`);
    } else if (!isFinalJob(job.kind, job.status)) {
      jobsLost += 1;
      violations.push(`job lost: video ${id} still ${job.status} in the store (202 to ${describe(record)})`);
    }
    if (final?.status === 'completed') {
      videos.completed += 1;
      succeeded.set(id, { ...record, costMicros: final.costMicros });
    } else if (final?.status === 'failed') {
      videos.failed += 1;
      const reason = (final.error ?? 'no message').replace(/video_\w+/g, '…').slice(0, 120);
      videoFailures[reason] = (videoFailures[reason] ?? 0) + 1;
    } else {
      videos.notFinal += 1;
      violations.push(
        `video not final: ${id} answers ${final?.status ?? 'nothing'} (202 to ${describe(record)})`,
      );
    }
  }

  // Synchronous media answered 200: its job is delivered.
  for (const [jobId, record] of succeeded) {
    if (SYNC_KINDS[record.kind] === undefined) continue;
    const job = jobsById.get(jobId);
    if (job === undefined) {
      jobsLost += 1;
      violations.push(`job lost: ${jobId} answered 200 (${describe(record)}) has no job record`);
    } else if (job.status !== 'delivered') {
      if (!isFinalJob(job.kind, job.status)) jobsLost += 1;
      violations.push(`${jobId} answered 200 (${describe(record)}) but its job is ${job.status}`);
    }
  }

  // Media jobs that never reached a final state (whoever sent them).
  const byStatus: Record<string, number> = {};
  let notFinal = 0;
  for (const job of input.jobs) {
    byStatus[`${job.kind}:${job.status}`] = (byStatus[`${job.kind}:${job.status}`] ?? 0) + 1;
    if (!isFinalJob(job.kind, job.status)) {
      notFinal += 1;
      violations.push(
        `media job not final: ${job.id} (${job.kind}) ${job.status}, created ${t(job.createdAt, startedAt)}, updated ${t(job.updatedAt, startedAt)}`,
      );
    }
  }

  // Charges: once per request, only for successful answers and completed videos, at the stated cost.
  const { charges } = input.ledger;
  let doubleCharges = input.ledger.duplicateIds.length;
  for (const id of input.ledger.duplicateIds) violations.push(`double charge: ledger id ${id} appears twice`);
  const byRequest = new Map<string, ChargeRow[]>();
  for (const charge of charges) {
    const request = requestIdOfEntry(charge.id);
    byRequest.set(request, [...(byRequest.get(request) ?? []), charge]);
  }
  for (const [request, group] of byRequest) {
    if (group.length < 2) continue;
    doubleCharges += group.length - 1;
    violations.push(`double charge: request ${request} charged under ${group.map((c) => c.id).join(', ')}`);
  }
  const recordByRequestId = new Map(
    records.filter((r) => r.requestId).map((r) => [r.requestId as string, r]),
  );
  let chargesWithoutSuccess = 0;
  let orphanVideosCharged = 0;
  const chargedIds = new Set(charges.map((charge) => charge.id));
  /** Video requests that got no answer because their api was killed meanwhile. */
  const videosCutAtKills = records.filter(
    (r) => r.kind === 'video' && r.failure !== undefined && !r.cutAfterHeaders && killedDuring(r),
  );
  for (const charge of charges) {
    const success = succeeded.get(charge.id);
    if (success === undefined) {
      const seen = recordByRequestId.get(requestIdOfEntry(charge.id));
      const job = jobsById.get(charge.id);
      const since = job?.createdAt ?? charge.createdAt;
      // A video whose POST got no answer (its api was killed after creating the job): it renders,
      // completes and is charged, and the client can find it only in GET /v1/videos. Counted apart;
      // the request must have been in flight when the job was created.
      if (
        seen === undefined &&
        job?.kind === 'video' &&
        job.status === 'completed' &&
        videosCutAtKills.some((r) => r.startedAt - 50 <= job.createdAt && job.createdAt <= r.endedAt + 50)
      ) {
        orphanVideosCharged += 1;
        continue;
      }
      chargesWithoutSuccess += 1;
      const kills = input.apis
        .flatMap((api) => api.kills.map((at) => ({ api: api.name, at })))
        .filter((kill) => Math.abs(kill.at - since) < 5_000)
        .map((kill) => `${kill.api} killed ${t(kill.at, startedAt)}`);
      const outage = input.redisOutages.find(
        (o) => since >= o.from - 1_000 && since <= (o.to ?? Number.POSITIVE_INFINITY) + input.redisGraceMs,
      );
      violations.push(
        `charged without a successful answer: ${charge.id} (${-charge.amount} µIRT, written ${t(charge.createdAt, startedAt)}${job ? `; job ${job.status}, created ${t(job.createdAt, startedAt)}` : ''}); client saw ${seen ? `${seen.status ?? seen.failure}${seen.errorCode ? ` ${seen.errorCode}` : ''}${seen.retryAfter ? ` Retry-After ${seen.retryAfter}` : ''}${seen.cutAfterHeaders ? ' (cut after headers)' : ''} from ${describe(seen)}` : 'no answer with this id'}${kills.length ? `; near ${kills.join(', ')}` : ''}${outage ? `; Redis ${outage.empty ? 'restarted empty' : 'restarted'} ${t(outage.from, startedAt)}–${outage.to === undefined ? '?' : t(outage.to, startedAt)}` : ''}`,
      );
      continue;
    }
    if (success.costMicros !== undefined && success.costMicros !== -charge.amount)
      violations.push(
        `charge differs from the answer: ${charge.id} charged ${-charge.amount} µIRT, answer stated ${success.costMicros} µIRT`,
      );
  }
  let underChargedAtKills = 0;
  for (const [id, record] of succeeded) {
    if (chargedIds.has(id)) continue;
    if (record.kind === 'video') {
      violations.push(`completed video not charged: ${id} (${describe(record)})`);
    } else if (killedDuring(record, 0, input.settleWindowMs)) {
      underChargedAtKills += 1;
    } else {
      violations.push(`answered but not charged (its api was not killed): ${id} (${describe(record)})`);
    }
  }

  if (input.holds.live > 0)
    violations.push(
      `holds left after the leases: ${input.holds.live} (${input.holds.liveIds.slice(0, 10).join(', ')})`,
    );
  if (input.ledgerCheck.code !== 0 || input.ledgerCheck.verdict !== 'consistent')
    violations.push(`ledger check: exit ${input.ledgerCheck.code}, "${input.ledgerCheck.verdict}"`);
  for (const difference of input.ledger.walletDifferences)
    violations.push(
      `wallet ${difference.accountId} differs from its ledger by ${difference.difference} µIRT`,
    );
  for (const exit of input.unexpectedExits)
    violations.push(
      `${exit.name} (pid ${exit.pid}) exited on its own ${t(exit.at, startedAt)}: code ${exit.code}, signal ${exit.signal}`,
    );
  for (const error of input.scheduleErrors) violations.push(`schedule: ${error}`);

  for (const kind of KINDS) byKind[kind] ??= 0;
  return {
    requests: records.length,
    byKind,
    histogram,
    connectionFailuresAtKills,
    connectionFailuresByReplica,
    uploadsCutByEarly503,
    fivexx,
    status500,
    redisDown503WithRetryAfter,
    jobsLost,
    doubleCharges,
    chargesWithoutSuccess,
    orphanVideosCharged,
    underChargedAtKills,
    videos,
    videoFailures,
    mediaJobs: { total: input.jobs.length, notFinal, byStatus },
    charges: charges.length,
    holds: input.holds,
    ledgerCheck: { code: input.ledgerCheck.code, verdict: input.ledgerCheck.verdict },
    violations,
  };
}

/**
 * Adds to each violation what the processes' logs say about the ids it names (the `msg` of each
 * JSON log line mentioning one, with its process and time), so a report points at the cause.
 */
export function withLogEvidence(violations: readonly string[], logDir: string, startedAt: number): string[] {
  let files: Array<{ name: string; lines: string[] }>;
  try {
    files = readdirSync(logDir)
      .filter((file) => file.endsWith('.log'))
      .map((file) => ({
        name: file.replace(/\.log$/, ''),
        lines: readFileSync(join(logDir, file), 'utf8').split('\n'),
      }));
  } catch {
    return [...violations];
  }
  return violations.map((violation) => {
    const ids = new Set(violation.match(/\b(?:req|img|tts|stt|video)_[\w-]{16}\b/g) ?? []);
    for (const id of [...ids]) ids.add(requestIdOfEntry(id));
    if (ids.size === 0) return violation;
    const evidence: string[] = [];
    for (const file of files)
      for (const line of file.lines) {
        if (evidence.length >= 6) break;
        if (![...ids].some((id) => line.includes(id.slice(id.indexOf('_') + 1)))) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; time?: number; err?: { message?: string } };
          const note = `${file.name} ${entry.time === undefined ? '' : t(entry.time, startedAt)} "${entry.msg}"${entry.err?.message ? ` (${entry.err.message.slice(0, 90)})` : ''}`;
          if (!evidence.includes(note)) evidence.push(note);
        } catch {
          // not a JSON log line
        }
      }
    return evidence.length === 0 ? violation : `${violation}; logs: ${evidence.join('; ')}`;
  });
}
