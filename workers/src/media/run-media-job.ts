import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import { completedReturn, type MediaJobReturn } from '../../../shared/src/media-jobs/job-return.ts';
import {
  handoffsOf,
  type MediaJob,
  type MediaJobError,
  type MediaJobResult,
  type MediaKind,
} from '../../../shared/src/media-jobs/media-job.ts';
import { newAttemptId } from '../../../shared/src/media-jobs/media-storage.ts';
import { failedRender } from '../../../shared/src/request-log/video-records.ts';
import type { MediaWorkerDeps } from './media-worker-deps.ts';

/** What a processor's work produced: the result to record, and what to delete if nobody wants it. */
export interface MediaCompletion {
  readonly result: MediaJobResult;
  /** Charged by the worker (video); null when the api charges on delivery (synchronous kinds). */
  readonly costMicros: bigint | null;
  readonly storedKeys: readonly string[];
  readonly expiresAt: Date | null;
}

/** A failure a retry cannot fix, with the error the client is to see (e.g. a render that failed). */
export class MediaJobFailure extends Error {
  readonly error: MediaJobError;
  constructor(error: MediaJobError) {
    super(error.message);
    this.name = 'MediaJobFailure';
    this.error = error;
  }
}

/**
 * The job left `running` while this attempt worked (the reconciler failed a video past its
 * deadline, another attempt completed it): the attempt stops without charging and deletes what it
 * stored (under its own keys: another attempt's objects are not touched).
 */
export class JobEndedElsewhere extends Error {
  readonly storedKeys: readonly string[];
  constructor(jobId: string, storedKeys: readonly string[]) {
    super(`media job ${jobId} ended elsewhere while this attempt ran`);
    this.name = 'JobEndedElsewhere';
    this.storedKeys = storedKeys;
  }
}

/** One run of a job's work; `attempt` names this run in the keys of what it stores (`mediaKeys`). */
export type MediaWork = (job: MediaJob, model: CatalogueModel, attempt: string) => Promise<MediaCompletion>;

/**
 * The steps every media processor shares, each safe to repeat: load the document (the source of
 * truth), take it `queued|running → running`, do the work, record `running → completed`. A job that
 * already ended is left alone; a synchronous one no api waits for any more is cancelled, not run. When the api gave up on the job meanwhile, the completion is refused
 * and the stored media is deleted. Failures: retryable ones are thrown for BullMQ to retry with
 * backoff, until the last attempt; then, and for the others, the job is `failed` (video: its hold is
 * released) and the error is unrecoverable.
 */
export async function runMediaJob(
  deps: MediaWorkerDeps,
  kind: MediaKind,
  bullJob: Job<MediaJobPayload>,
  work: MediaWork,
): Promise<MediaJobReturn> {
  const log = deps.logger.child({ jobId: bullJob.data.jobId, kind });
  const job = await deps.jobs.markRunning(bullJob.data.jobId, deps.now());
  if (job === null) return { status: (await deps.jobs.findById(bullJob.data.jobId))?.status ?? 'missing' };
  // A synchronous job is run for an api that waits to deliver it: nobody waits, nobody would get it.
  if (kind !== 'video' && !(await deps.waiters.isAwaited(job.id))) return cancelUnawaited(deps, job, log);
  const model = deps.catalogue.get(job.model);
  if (model === undefined) {
    await fail(deps, job, {
      message: `the model ${job.model} left the catalogue`,
      status: 404,
      type: 'invalid_request_error',
      code: 'model_not_found',
    });
    throw new UnrecoverableError('model not in the catalogue');
  }
  let completion: MediaCompletion;
  try {
    completion = await work(job, model, newAttemptId());
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    if (err instanceof JobEndedElsewhere) return discardAttempt(deps, job.id, err.storedKeys, [], log);
    const error = describeFailure(err);
    const lastAttempt = bullJob.attemptsMade + 1 >= (bullJob.opts.attempts ?? 1);
    if (isRetryable(err) && !lastAttempt) {
      log.warn({ err, attempt: bullJob.attemptsMade + 1 }, 'media job attempt failed; retrying');
      throw err;
    }
    await fail(deps, job, error);
    throw new UnrecoverableError(error.message);
  }
  let completed: MediaJob | null;
  try {
    completed = await deps.jobs.markCompleted(
      job.id,
      completion.result,
      completion.costMicros,
      completion.expiresAt,
      deps.now(),
    );
  } catch (err) {
    // The job stays `running` and is retried: this attempt's short-lived copies go now. Its stored
    // objects stay: the write may have applied (its result then names them); if it did not, the
    // sweep deletes them once another attempt completed the job.
    await deps.handoff.drop(handoffsOf(completion.result));
    throw err;
  }
  if (completed === null)
    return discardAttempt(deps, job.id, completion.storedKeys, handoffsOf(completion.result), log);
  if (kind === 'video')
    deps.videoRecords?.complete(job.id, {
      status: 200,
      outcome: 'completed',
      errorCode: null,
      costMicros: completion.costMicros ?? 0n,
      provider: 'provider' in completion.result ? (completion.result.provider ?? null) : null,
      // The channel that accepted the render (none on the demo simulator).
      channelId: completed.operation?.channelId ?? null,
    });
  return completedReturn(completion.result);
}

/**
 * The job ended elsewhere while this attempt ran (the api gave up: `cancelled`, later `discarded`;
 * `failed`; gone; or another attempt of the job, a stalled job's rerun, completed it first): its
 * Redis copies and its stored media go. What it stored is under its own keys (`mediaKeys`), so the
 * objects of an attempt that completed the job, which it delivers or has delivered, stay as they are.
 */
async function discardAttempt(
  deps: MediaWorkerDeps,
  jobId: string,
  storedKeys: readonly string[],
  handoffs: readonly string[],
  log: MediaWorkerDeps['logger'],
): Promise<MediaJobReturn> {
  const current = await deps.jobs.findById(jobId);
  const completedElsewhere = current?.status === 'completed' || current?.status === 'delivered';
  log.info(
    { status: current?.status ?? 'missing' },
    completedElsewhere
      ? 'another attempt completed the job first; this attempt is dropped'
      : 'the job ended elsewhere before it completed; its media is discarded',
  );
  await Promise.all([deps.storage.remove(storedKeys), deps.handoff.drop(handoffs)]);
  return { status: completedElsewhere ? (current?.status ?? 'completed') : 'discarded' };
}

/**
 * No api waits for the job any more (it stopped or was killed, or its client left, before a worker
 * took the job: a rerun after a restart, say): `cancelled` without calling the provider, its hold
 * released (the api's, which would lapse anyway).
 */
async function cancelUnawaited(
  deps: MediaWorkerDeps,
  job: MediaJob,
  log: MediaWorkerDeps['logger'],
): Promise<MediaJobReturn> {
  const cancelled = await deps.jobs.markCancelled(job.id, deps.now());
  if (cancelled === null) return { status: (await deps.jobs.findById(job.id))?.status ?? 'missing' };
  await deps.billing.release({ requestId: job.id, accountId: job.accountId, keyId: job.keyId });
  log.info('no api waits for the job any more: cancelled without calling the provider');
  return { status: 'cancelled' };
}

async function fail(deps: MediaWorkerDeps, job: MediaJob, error: MediaJobError): Promise<void> {
  await deps.jobs.markFailed(job.id, error, deps.now());
  // The api holds and releases for the requests it answers itself; a video's hold is the worker's.
  if (job.kind === 'video') {
    await deps.billing.release({ requestId: job.id, accountId: job.accountId, keyId: job.keyId });
    deps.videoRecords?.complete(job.id, failedRender(error));
  }
}

function isRetryable(err: unknown): boolean {
  if (err instanceof UnrecoverableError || err instanceof MediaJobFailure) return false;
  if (err instanceof AppError) return err.status === 429 || err.status >= 500;
  return true;
}

/** The client-facing error of a failed job, in the spec's terms. */
function describeFailure(err: unknown): MediaJobError {
  if (err instanceof MediaJobFailure) return err.error;
  if (err instanceof AppError)
    return { message: err.message, status: err.status, type: err.type, code: err.code };
  return {
    message: 'The provider failed to produce the media; retry with backoff.',
    status: 502,
    type: 'upstream_error',
    code: 'upstream_error',
  };
}
