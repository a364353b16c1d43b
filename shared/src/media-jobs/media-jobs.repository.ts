import type {
  MediaJob,
  MediaJobError,
  MediaJobRequest,
  MediaJobResult,
  MediaKind,
  ProviderOperation,
} from './media-job.ts';

const PREFIXES: Readonly<Record<MediaKind, string>> = {
  image: 'img',
  speech: 'tts',
  transcription: 'stt',
  video: 'video',
};

/**
 * The id of the job a request creates, derived from the (unguessable) request id, so admission can
 * hold the cost under the job's id before the job exists. Also the BullMQ job id and ledger key.
 */
export function mediaJobIdFor(kind: MediaKind, requestId: string): string {
  return `${PREFIXES[kind]}_${requestId.replace(/^req_/, '')}`;
}

export interface NewMediaJob {
  id: string;
  accountId: string;
  keyId: string;
  model: string;
  request: MediaJobRequest;
  holdMicros: bigint;
  deadlineAt: Date | null;
}

/** Where a page of `listUnfinished` ends: the next page starts after this job. */
export interface UnfinishedCursor {
  readonly updatedAt: Date;
  readonly id: string;
}

/**
 * The media jobs store contract (SQLite and MongoDB implement it). Every state change is a
 * conditional move from named states: it returns the job after the move, or null when the job was
 * not in one of them (someone else moved it first), so two writers never both win.
 */
export interface MediaJobsRepository {
  insertQueued(job: NewMediaJob, now: Date): Promise<MediaJob>;
  findById(id: string): Promise<MediaJob | null>;
  /** A job of this account and kind that is not deleted; null for anyone else's. */
  findOwned(id: string, accountId: string, kind: MediaKind): Promise<MediaJob | null>;
  /** The account's jobs of one kind that are not deleted, newest first. */
  listOwned(accountId: string, kind: MediaKind, limit: number): Promise<MediaJob[]>;
  /** A worker takes the job: from `queued`, or again from `running` after a worker died. */
  markRunning(id: string, now: Date): Promise<MediaJob | null>;
  recordOperation(id: string, operation: ProviderOperation, now: Date): Promise<MediaJob | null>;
  recordProgress(id: string, progress: number, now: Date): Promise<MediaJob | null>;
  markCompleted(
    id: string,
    result: MediaJobResult,
    costMicros: bigint | null,
    expiresAt: Date | null,
    now: Date,
  ): Promise<MediaJob | null>;
  markFailed(id: string, error: MediaJobError, now: Date): Promise<MediaJob | null>;
  /** The api answered the client with this job's result (and charged it). */
  markDelivered(id: string, costMicros: bigint, now: Date): Promise<MediaJob | null>;
  /** The api's wait ended before the job did: no worker may complete it any more. */
  markCancelled(id: string, now: Date): Promise<MediaJob | null>;
  /** The job completed but its client was already gone: its result is not delivered nor charged. */
  markDiscarded(id: string, now: Date): Promise<MediaJob | null>;
  /** Soft-deletes the account's job; false when there is none (or it is deleted already). */
  markDeleted(id: string, accountId: string, now: Date): Promise<boolean>;
  /**
   * Jobs that may still need work (the reconciler's query): `queued` or `running` of any kind, and
   * `completed` jobs of the synchronous kinds (image, speech, transcription: not yet delivered nor
   * discarded; a completed video is final), last updated before `olderThan`, in order of
   * (updatedAt, id), at most `limit`, after `after` when given (the previous page's last job).
   */
  listUnfinished(olderThan: Date, limit: number, after?: UnfinishedCursor): Promise<MediaJob[]>;
  /** The videos queued or rendering that a channel accepted (its `operation.channelId`). */
  listUnfinishedOnChannel(channelId: string): Promise<MediaJob[]>;
}
