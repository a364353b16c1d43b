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

/** The stored form: the domain record with `_id` and snake-case-free field names kept as they are. */
type MediaJobDoc = Omit<MediaJob, 'id'> & { _id: string };

const COLLECTION = 'media_jobs';

declareIndexes(COLLECTION, [
  // serves: listOwned() — a user's videos, newest first (GET /v1/videos)
  { key: { accountId: 1, kind: 1, createdAt: -1 }, name: 'account_kind_created' },
  // serves: listUnfinished() (the reconciler) — jobs not final, and completed jobs of the
  // synchronous kinds, without reading the completed videos (final, and they accumulate)
  { key: { status: 1, kind: 1, updatedAt: 1, _id: 1 }, name: 'status_kind_updated' },
]);

/** Data access to `media_jobs`; every state change is a conditional update from named states. */
export function createMongoMediaJobsRepository(db: Db): MediaJobsRepository {
  const collection = db.collection<MediaJobDoc>(COLLECTION, { useBigInt64: true });

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
      { $set: { ...set, status: to, updatedAt: now } },
      { returnDocument: 'after' },
    );
    return doc === null ? null : toJob(doc);
  }

  return {
    async insertQueued(job: NewMediaJob, now: Date): Promise<MediaJob> {
      const doc: MediaJobDoc = {
        _id: job.id,
        kind: job.request.kind,
        accountId: job.accountId,
        keyId: job.keyId,
        model: job.model,
        status: 'queued',
        request: job.request,
        holdMicros: job.holdMicros,
        result: null,
        costMicros: null,
        error: null,
        progress: 0,
        operation: null,
        deadlineAt: job.deadlineAt,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        expiresAt: null,
        deletedAt: null,
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
      const doc = await collection.findOne({ _id: id, accountId, kind, deletedAt: null });
      return doc === null ? null : toJob(doc);
    },

    async listOwned(accountId: string, kind: MediaKind, limit: number): Promise<MediaJob[]> {
      const docs = await collection
        .find({ accountId, kind, deletedAt: null })
        .sort({ createdAt: -1 })
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
        { result, costMicros, progress: 100, completedAt: now, expiresAt },
        now,
      ),

    markFailed: (id: string, error: MediaJobError, now: Date) =>
      move(id, ['queued', 'running'], 'failed', { error }, now),

    /** The api answered the client with this job's result (and charged it). */
    markDelivered: (id: string, costMicros: bigint, now: Date) =>
      move(id, ['completed'], 'delivered', { costMicros }, now),

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
        updatedAt: { $lt: olderThan },
      };
      if (after !== undefined) {
        filter.$and = [
          {
            $or: [
              { updatedAt: { $gt: after.updatedAt } },
              { updatedAt: after.updatedAt, _id: { $gt: after.id } },
            ],
          },
        ];
      }
      const docs = await collection.find(filter).sort({ updatedAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toJob);
    },

    async markDeleted(id: string, accountId: string, now: Date): Promise<boolean> {
      const result = await collection.updateOne(
        { _id: id, accountId, deletedAt: null },
        { $set: { deletedAt: now, updatedAt: now } },
      );
      return result.modifiedCount === 1;
    },
  };
}

function toJob(doc: MediaJobDoc): MediaJob {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}
