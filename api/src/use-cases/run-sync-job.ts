import type { Billing } from '../../../shared/src/billing/billing.ts';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError, type ErrorType, errors } from '../../../shared/src/errors/app-error.ts';
import { enqueueMediaJob, type Queues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import { resultOfReturn } from '../../../shared/src/media-jobs/job-return.ts';
import type { MediaHandoff } from '../../../shared/src/media-jobs/media-handoff.ts';
import {
  handoffsOf,
  type MediaJob,
  type MediaJobRequest,
  type MediaJobResult,
} from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { type MediaStorage, storedKeysOf } from '../../../shared/src/media-jobs/media-storage.ts';
import { jobCharge } from '../../../shared/src/media-jobs/settle-job.ts';
import { NO_TOKENS, observeCharge } from '../../../shared/src/observability/charge-observation.ts';
import { noteCharge } from '../../../shared/src/request-log/request-draft.ts';
import { type AdmissionContext, queueChargeReplacingHold } from '../admission/admission-context.ts';
import type { JobWaiter } from '../media/job-waiter.ts';

/** What the media endpoints need from the process. */
export interface MediaDeps {
  readonly jobs: MediaJobsRepository;
  readonly storage: MediaStorage;
  /** The workers' short-lived Redis copies of small results, taken instead of reading S3. */
  readonly handoff: Pick<MediaHandoff, 'takeOr' | 'drop'>;
  readonly queues: Queues;
  readonly waiter: JobWaiter;
  /**
   * Charges delivered jobs through the group commit, as chat does (docs/media.md); hands a video's
   * hold to its job (`transferHold`; without it, the hold stays this process's lease).
   */
  readonly billing: Pick<Billing, 'settleDeferred'> & Partial<Pick<Billing, 'transferHold'>>;
  readonly waitTimeoutMs: number;
  readonly now: () => Date;
  readonly logger: Logger;
}

export interface SyncJobInput<T = undefined> {
  readonly request: Exclude<MediaJobRequest, { kind: 'video' }>;
  readonly model: CatalogueModel;
  readonly admission: AdmissionContext;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /**
   * Reads what the answer needs of a completed job's result (its media: the worker's Redis copy,
   * else storage), before the job is delivered and charged: a failed read answers 502 and charges
   * nothing. `discardRead` releases what was read when the delivery then failed (an open stream).
   */
  readonly readResult?: (result: MediaJobResult) => Promise<T>;
  readonly discardRead?: (read: T) => void;
}

/** A delivered job: its result, what it was charged, and what `readResult` read of it. */
export interface Delivered<T> {
  readonly job: MediaJob;
  readonly result: MediaJobResult;
  readonly costMicros: bigint;
  readonly read: T;
}

/**
 * An image, speech or transcription request: a job document (`queued`), a BullMQ job with the same
 * id, and a bounded wait for it. A completed job's media is read, then the job is marked
 * `delivered`, then charged once (ledger entry keyed by the job id). When the wait ends first
 * (timeout, client gone) the job is cancelled, or its finished result discarded, so a request
 * answered with an error is never charged, even if its job finishes later; the hold is released
 * when the response ends.
 */
export async function runSyncJob<T = undefined>(
  deps: MediaDeps,
  input: SyncJobInput<T>,
): Promise<Delivered<T | undefined>> {
  const { admission, model } = input;
  const jobId = admission.holdId;
  const record = { id: jobId, accountId: admission.key.accountId, keyId: admission.key.id, model: model.id };
  const queued = await deps.jobs.insertQueued(
    { ...record, request: input.request, holdMicros: admission.estimateMicros, deadlineAt: null },
    deps.now(),
  );
  const kind = input.request.kind;
  const outcome = await deps.waiter.waitForEnd(jobId, {
    start: () => enqueueMediaJob(deps.queues, kind, jobId),
    read: async (hint) => {
      // The worker's completion event carries the result it recorded: no need to read it back.
      const result = resultOfReturn(hint, kind);
      return result === null ? deps.jobs.findById(jobId) : { ...queued, status: 'completed', result };
    },
    timeoutMs: deps.waitTimeoutMs,
    signal: input.signal,
  });
  if (outcome.ended === null) throw await abandon(deps, jobId, outcome.reason);
  const job = outcome.ended;
  if (job.status !== 'completed' || job.result === null) throw errorOf(job);
  // The media is read before the job is delivered: one that cannot be read is answered with an
  // error, and its job discarded, before anything is charged.
  let read: T | undefined;
  try {
    read = await input.readResult?.(job.result);
  } catch (err) {
    deps.logger.error({ err, jobId }, 'the media of a completed job could not be read; nothing is charged');
    await discardResult(deps, jobId).catch(() => undefined);
    throw new AppError(
      502,
      'upstream_error',
      'media_unavailable',
      'The generated media could not be read; nothing was charged. Retry.',
    );
  }
  if (input.signal.aborted) {
    // The client left while its media was read: nobody receives it, so it is not delivered.
    if (read !== undefined) input.discardRead?.(read);
    await discardResult(deps, jobId).catch(() => undefined);
    throw errors.clientClosedRequest();
  }
  try {
    return { ...(await deliver(deps, job, job.result, model, admission)), read };
  } catch (err) {
    if (read !== undefined) input.discardRead?.(read);
    throw err;
  }
}

async function deliver(
  deps: MediaDeps,
  job: MediaJob,
  result: MediaJobResult,
  model: CatalogueModel,
  admission: AdmissionContext,
): Promise<Omit<Delivered<never>, 'read'>> {
  const costMicros = mediaCostMicros(model.pricing, billedQuantity(result));
  const delivered = await deps.jobs.markDelivered(job.id, costMicros, deps.now());
  if (delivered === null)
    throw new AppError(502, 'upstream_error', 'upstream_error', 'The media job could not be delivered.');
  // Charged once the job is recorded delivered, so an answer that ends in an error is never
  // charged: queued for the next settlement batch (group commit, keyed by the job id); the hold
  // stays until the charge counts. Under backpressure the answer waits for the batch.
  await queueChargeReplacingHold(admission, () =>
    deps.billing.settleDeferred(jobCharge(job, model.id, costMicros)),
  );
  observeCharge(model.id, result.provider ?? 'unknown', NO_TOKENS, costMicros);
  noteCharge(admission.draft, {
    model: model.id,
    costMicros,
    inputTokens: 0,
    outputTokens: 0,
    provider: result.provider ?? null,
  });
  return { job: delivered, result, costMicros };
}

/** What the pricing unit counts: images, characters of input, or seconds of audio. */
function billedQuantity(result: MediaJobResult): number {
  switch (result.kind) {
    case 'image':
      return result.images.length;
    case 'speech':
      return result.characters;
    case 'transcription':
      return result.duration;
    case 'video':
      return result.seconds;
  }
}

/** The wait ended before the job: nothing may be charged for it, whichever finishes first. */
async function abandon(deps: MediaDeps, jobId: string, reason: 'timeout' | 'aborted'): Promise<AppError> {
  const cancelled = await deps.jobs.markCancelled(jobId, deps.now());
  if (cancelled === null) await discardResult(deps, jobId);
  if (reason === 'aborted') return errors.clientClosedRequest();
  return new AppError(
    504,
    'upstream_error',
    'upstream_timeout',
    'The provider did not finish in time; nothing was charged. Retry with backoff.',
  );
}

/** A completed job nobody will be charged for: `discarded`, its media deleted. */
async function discardResult(deps: MediaDeps, jobId: string): Promise<void> {
  const discarded = await deps.jobs.markDiscarded(jobId, deps.now());
  if (discarded?.result)
    await Promise.all([
      deps.storage.remove(storedKeysOf(discarded)),
      deps.handoff.drop(handoffsOf(discarded.result)),
    ]);
}

/** The client's error for a job that failed (as the worker recorded it). */
export function errorOf(job: MediaJob): AppError {
  const error = job.error ?? {
    message: 'The media job did not complete.',
    status: 502,
    type: 'upstream_error',
    code: 'upstream_error',
  };
  return new AppError(error.status, error.type as ErrorType, error.code, error.message);
}
