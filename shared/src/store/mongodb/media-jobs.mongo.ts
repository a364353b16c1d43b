import type { Db, Filter } from 'mongodb';
import {
  type MediaJob,
  type MediaJobError,
  type MediaJobResult,
  type MediaJobStatus,
  type MediaKind,
  type ProviderOperation,
  SYNCHRONOUS_KINDS,
} from '../../media-jobs/media-job.ts';
import type {
  MediaJobsRepository,
  NewMediaJob,
  UnfinishedCursor,
} from '../../media-jobs/media-jobs.repository.ts';
import { declareIndexes } from './indexes.ts';

/**
 * The stored form: the domain record's fields in snake case, as in every other collection, with
 * `_id` for its id. The embedded values (`request`, `result`, `error`, `operation`) are stored as
 * the domain gives them, as the SQLite store keeps them as JSON text.
 */
export interface MediaJobDoc {
  _id: string;
  kind: MediaKind;
  account_id: string;
  key_id: string;
  model: string;
  status: MediaJobStatus;
  request: MediaJob['request'];
  hold_micros: bigint;
  result: MediaJobResult | null;
  cost_micros: bigint | null;
  error: MediaJobError | null;
  progress: number;
  operation: ProviderOperation | null;
  deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date | null;
  deleted_at: Date | null;
}

export const MEDIA_JOBS_COLLECTION = 'media_jobs';

declareIndexes(MEDIA_JOBS_COLLECTION, [
  // serves: listOwned() — a user's videos, newest first (GET /v1/videos)
  { key: { account_id: 1, kind: 1, created_at: -1 }, name: 'account_kind_created_at' },
  // serves: listUnfinished() (the reconciler) — jobs not final, and completed jobs of the
  // synchronous kinds, without reading the completed videos (final, and they accumulate)
  { key: { status: 1, kind: 1, updated_at: 1, _id: 1 }, name: 'status_kind_updated_at' },
]);

/** Data access to `media_jobs`; every state change is a conditional update from named states. */
export function createMongoMediaJobsRepository(db: Db): MediaJobsRepository {
  const collection = db.collection<MediaJobDoc>(MEDIA_JOBS_COLLECTION, { useBigInt64: true });

  async function move(
    id: string,
    from: readonly MediaJobStatus[],
    to: MediaJobStatus,
    set: Partial<MediaJobDoc>,
    now: Date,
  ): Promise<MediaJob | null> {
    const filter: Filter<MediaJobDoc> = { _id: id, status: { $in: [...from] } };
    const doc = await collection.findOneAndUpdate(
      filter,
      { $set: { ...set, status: to, updated_at: now } },
      { returnDocument: 'after' },
    );
    return doc === null ? null : toJob(doc);
  }

  return {
    async insertQueued(job: NewMediaJob, now: Date): Promise<MediaJob> {
      const doc: MediaJobDoc = {
        _id: job.id,
        kind: job.request.kind,
        account_id: job.accountId,
        key_id: job.keyId,
        model: job.model,
        status: 'queued',
        request: job.request,
        hold_micros: job.holdMicros,
        result: null,
        cost_micros: null,
        error: null,
        progress: 0,
        operation: null,
        deadline_at: job.deadlineAt,
        created_at: now,
        updated_at: now,
        completed_at: null,
        expires_at: null,
        deleted_at: null,
      };
      await collection.insertOne(doc);
      return toJob(doc);
    },

    async findById(id: string): Promise<MediaJob | null> {
      const doc = await collection.findOne({ _id: id });
      return doc === null ? null : toJob(doc);
    },

    /** A job of this account and kind that is not deleted; null for anyone else's. */
    async findOwned(id: string, accountId: string, kind: MediaKind): Promise<MediaJob | null> {
      const doc = await collection.findOne({ _id: id, account_id: accountId, kind, deleted_at: null });
      return doc === null ? null : toJob(doc);
    },

    async listOwned(accountId: string, kind: MediaKind, limit: number): Promise<MediaJob[]> {
      const docs = await collection
        .find({ account_id: accountId, kind, deleted_at: null })
        .sort({ created_at: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toJob);
    },

    /** A worker takes the job: from `queued`, or again from `running` after a worker died. */
    markRunning: (id: string, now: Date) => move(id, ['queued', 'running'], 'running', {}, now),

    recordOperation: (id: string, operation: ProviderOperation, now: Date) =>
      move(id, ['running'], 'running', { operation }, now),

    recordProgress: (id: string, progress: number, now: Date) =>
      move(id, ['running'], 'running', { progress }, now),

    markCompleted: (
      id: string,
      result: MediaJobResult,
      costMicros: bigint | null,
      expiresAt: Date | null,
      now: Date,
    ) =>
      move(
        id,
        ['running'],
        'completed',
        { result, cost_micros: costMicros, progress: 100, completed_at: now, expires_at: expiresAt },
        now,
      ),

    markFailed: (id: string, error: MediaJobError, now: Date) =>
      move(id, ['queued', 'running'], 'failed', { error }, now),

    /** The api answered the client with this job's result (and charged it). */
    markDelivered: (id: string, costMicros: bigint, now: Date) =>
      move(id, ['completed'], 'delivered', { cost_micros: costMicros }, now),

    /** The api's wait ended before the job did: no worker may complete it any more. */
    markCancelled: (id: string, now: Date) => move(id, ['queued', 'running'], 'cancelled', {}, now),

    /** The job completed but its client was already gone: its result is not delivered nor charged. */
    markDiscarded: (id: string, now: Date) => move(id, ['completed'], 'discarded', {}, now),

    async listUnfinished(olderThan: Date, limit: number, after?: UnfinishedCursor): Promise<MediaJob[]> {
      const filter: Filter<MediaJobDoc> = {
        $or: [
          { status: { $in: ['queued', 'running'] } },
          { status: 'completed', kind: { $in: [...SYNCHRONOUS_KINDS] } },
        ],
        updated_at: { $lt: olderThan },
      };
      if (after !== undefined) {
        filter.$and = [
          {
            $or: [
              { updated_at: { $gt: after.updatedAt } },
              { updated_at: after.updatedAt, _id: { $gt: after.id } },
            ],
          },
        ];
      }
      const docs = await collection.find(filter).sort({ updated_at: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toJob);
    },

    async listUnfinishedOnChannel(channelId: string): Promise<MediaJob[]> {
      // Rare (deleting a channel): the status index narrows it to the unfinished jobs.
      const docs = await collection
        .find({ status: { $in: ['queued', 'running'] }, kind: 'video', 'operation.channelId': channelId })
        .toArray();
      return docs.map(toJob);
    },

    async markDeleted(id: string, accountId: string, now: Date): Promise<boolean> {
      const result = await collection.updateOne(
        { _id: id, account_id: accountId, deleted_at: null },
        { $set: { deleted_at: now, updated_at: now } },
      );
      return result.modifiedCount === 1;
    },
  };
}

function toJob(doc: MediaJobDoc): MediaJob {
  return {
    id: doc._id,
    kind: doc.kind,
    accountId: doc.account_id,
    keyId: doc.key_id,
    model: doc.model,
    status: doc.status,
    request: doc.request,
    holdMicros: doc.hold_micros,
    result: doc.result,
    costMicros: doc.cost_micros,
    error: doc.error,
    progress: doc.progress,
    operation: doc.operation,
    deadlineAt: doc.deadline_at,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
    completedAt: doc.completed_at,
    expiresAt: doc.expires_at,
    deletedAt: doc.deleted_at,
  };
}
