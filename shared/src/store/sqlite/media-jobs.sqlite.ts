import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type {
  MediaJob,
  MediaJobError,
  MediaJobRequest,
  MediaJobResult,
  MediaJobStatus,
  MediaKind,
  ProviderOperation,
} from '../../media-jobs/media-job.ts';
import { SYNCHRONOUS_KINDS } from '../../media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../media-jobs/media-jobs.repository.ts';

/**
 * A row of table `media_jobs` (migrations.ts), read with `setReadBigInts(true)`: every INTEGER comes
 * back as bigint (money exactly; times are converted back to numbers). `progress` is REAL: a
 * provider may report a fraction of a percent, which an INTEGER column of a STRICT table refuses.
 */
interface MediaJobRow {
  id: string;
  kind: MediaKind;
  account_id: string;
  key_id: string;
  model: string;
  status: MediaJobStatus;
  request: string;
  hold_micros: bigint;
  result: string | null;
  cost_micros: bigint | null;
  error: string | null;
  progress: number;
  operation: string | null;
  deadline_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
  completed_at: bigint | null;
  expires_at: bigint | null;
  deleted_at: bigint | null;
}

/** The media jobs repository on SQLite; every state change is one conditional UPDATE … RETURNING. */
export function createSqliteMediaJobsRepository(db: DatabaseSync): MediaJobsRepository {
  const reading = (sql: string): StatementSync => {
    const statement = db.prepare(sql);
    statement.setReadBigInts(true);
    return statement;
  };
  // `from` and `to` are constants of this file, never input, so they are written into the SQL.
  const move = (from: readonly MediaJobStatus[], to: MediaJobStatus, columns: readonly string[] = []) => {
    const statement = reading(
      `UPDATE media_jobs SET status = '${to}', updated_at = :now${columns.map((c) => `, ${c} = :${c}`).join('')}
       WHERE id = :id AND status IN (${from.map((status) => `'${status}'`).join(', ')})
       RETURNING *`,
    );
    return async (id: string, now: Date, values: Record<string, SQLInputValue> = {}) =>
      toJobOrNull(statement.get({ id, now: now.getTime(), ...values }));
  };

  const insert = reading(
    `INSERT INTO media_jobs (id, kind, account_id, key_id, model, status, request, hold_micros, result,
       cost_micros, error, progress, operation, deadline_at, created_at, updated_at, completed_at,
       expires_at, deleted_at)
     VALUES (:id, :kind, :account_id, :key_id, :model, 'queued', :request, :hold_micros, NULL,
       NULL, NULL, 0, NULL, :deadline_at, :now, :now, NULL, NULL, NULL)
     RETURNING *`,
  );
  const byId = reading('SELECT * FROM media_jobs WHERE id = ?');
  const owned = reading(
    'SELECT * FROM media_jobs WHERE id = ? AND account_id = ? AND kind = ? AND deleted_at IS NULL',
  );
  const listOwned = reading(
    `SELECT * FROM media_jobs WHERE account_id = ? AND kind = ? AND deleted_at IS NULL
     ORDER BY created_at DESC LIMIT ?`,
  );
  // Two arms, each served by an index: the jobs not final yet, and the completed jobs of the
  // synchronous kinds (not delivered nor discarded yet; completed videos are final).
  const page = `updated_at < :older AND (updated_at, id) > (:after_at, :after_id) ORDER BY updated_at, id LIMIT :limit`;
  const listUnfinished = reading(
    `SELECT * FROM (SELECT * FROM media_jobs WHERE status IN ('queued', 'running') AND ${page})
     UNION ALL
     SELECT * FROM (SELECT * FROM media_jobs INDEXED BY media_jobs_status_kind_updated WHERE status = 'completed'
       AND kind IN (${SYNCHRONOUS_KINDS.map((kind) => `'${kind}'`).join(', ')}) AND ${page})
     ORDER BY updated_at, id LIMIT :limit`,
  );
  // Rare (deleting a channel): a scan of the unfinished jobs by the status index is enough.
  const onChannel = reading(
    `SELECT * FROM media_jobs WHERE status IN ('queued', 'running') AND kind = 'video'
       AND json_extract(operation, '$.channelId') = :channel_id`,
  );
  const markDeleted = db.prepare(
    `UPDATE media_jobs SET deleted_at = :now, updated_at = :now
     WHERE id = :id AND account_id = :account_id AND deleted_at IS NULL`,
  );

  const running = move(['queued', 'running'], 'running');
  const operation = move(['running'], 'running', ['operation']);
  const progress = move(['running'], 'running', ['progress']);
  const completed = move(['running'], 'completed', [
    'result',
    'cost_micros',
    'progress',
    'completed_at',
    'expires_at',
  ]);
  const failed = move(['queued', 'running'], 'failed', ['error']);
  const delivered = move(['completed'], 'delivered', ['cost_micros']);
  const cancelled = move(['queued', 'running'], 'cancelled');
  const discarded = move(['completed'], 'discarded');

  return {
    async insertQueued(job, now) {
      const row = insert.get({
        id: job.id,
        kind: job.request.kind,
        account_id: job.accountId,
        key_id: job.keyId,
        model: job.model,
        request: JSON.stringify(job.request),
        hold_micros: job.holdMicros,
        deadline_at: msOrNull(job.deadlineAt),
        now: now.getTime(),
      });
      return toJob(row as unknown as MediaJobRow);
    },

    async findById(id) {
      return toJobOrNull(byId.get(id));
    },

    async findOwned(id, accountId, kind) {
      return toJobOrNull(owned.get(id, accountId, kind));
    },

    async listOwned(accountId, kind, limit) {
      return listOwned.all(accountId, kind, limit).map((row) => toJob(row as unknown as MediaJobRow));
    },

    markRunning: (id, now) => running(id, now),
    recordOperation: (id, value: ProviderOperation, now) =>
      operation(id, now, { operation: JSON.stringify(value) }),
    recordProgress: (id, value, now) => progress(id, now, { progress: value }),
    markCompleted: (id, result, costMicros, expiresAt, now) =>
      completed(id, now, {
        result: JSON.stringify(result),
        cost_micros: costMicros,
        progress: 100,
        completed_at: now.getTime(),
        expires_at: msOrNull(expiresAt),
      }),
    markFailed: (id, error, now) => failed(id, now, { error: JSON.stringify(error) }),
    markDelivered: (id, costMicros, now) => delivered(id, now, { cost_micros: costMicros }),
    markCancelled: (id, now) => cancelled(id, now),
    markDiscarded: (id, now) => discarded(id, now),

    async markDeleted(id, accountId, now) {
      return markDeleted.run({ id, account_id: accountId, now: now.getTime() }).changes === 1;
    },

    async listUnfinished(olderThan, limit, after) {
      const rows = listUnfinished.all({
        older: olderThan.getTime(),
        after_at: after === undefined ? -1 : after.updatedAt.getTime(),
        after_id: after?.id ?? '',
        limit,
      });
      return rows.map((row) => toJob(row as unknown as MediaJobRow));
    },

    async listUnfinishedOnChannel(channelId) {
      return onChannel.all({ channel_id: channelId }).map((row) => toJob(row as unknown as MediaJobRow));
    },
  };
}

function toJobOrNull(row: unknown): MediaJob | null {
  return row === undefined ? null : toJob(row as MediaJobRow);
}

function toJob(row: MediaJobRow): MediaJob {
  return {
    id: row.id,
    kind: row.kind,
    accountId: row.account_id,
    keyId: row.key_id,
    model: row.model,
    status: row.status,
    request: JSON.parse(row.request) as MediaJobRequest,
    holdMicros: row.hold_micros,
    result: row.result === null ? null : (JSON.parse(row.result) as MediaJobResult),
    costMicros: row.cost_micros,
    error: row.error === null ? null : (JSON.parse(row.error) as MediaJobError),
    progress: Number(row.progress),
    operation: row.operation === null ? null : toOperation(row.operation),
    deadlineAt: dateOrNull(row.deadline_at),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    completedAt: dateOrNull(row.completed_at),
    expiresAt: dateOrNull(row.expires_at),
    deletedAt: dateOrNull(row.deleted_at),
  };
}

// JSON keeps `submittedAt` as its ISO text; the record holds a Date.
function toOperation(json: string): ProviderOperation {
  const stored = JSON.parse(json) as Omit<ProviderOperation, 'submittedAt'> & { submittedAt: string };
  return { ...stored, submittedAt: new Date(stored.submittedAt) };
}

function msOrNull(date: Date | null): number | null {
  return date === null ? null : date.getTime();
}

function dateOrNull(ms: bigint | null): Date | null {
  return ms === null ? null : new Date(Number(ms));
}
