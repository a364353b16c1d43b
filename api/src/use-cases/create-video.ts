import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { enqueueMediaJob, type Queues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { VIDEO_HOLD_MARGIN_MS } from '../../../shared/src/media-jobs/video-hold.ts';
import type { VideoRequest } from '../../../shared/src/providers/media-types.ts';
import { type AdmissionContext, handHoldTo } from '../admission/admission-context.ts';

export interface CreateVideoDeps {
  readonly jobs: Pick<MediaJobsRepository, 'insertQueued' | 'markCancelled'>;
  readonly queues: Queues;
  /** Hands the hold to the job; without `transferHold`, the hold stays this process's lease. */
  readonly billing: Partial<Pick<Billing, 'transferHold'>>;
  /** A render running longer is given up; its hold lives a little longer than that. */
  readonly deadlineMs: number;
  readonly clock: () => Date;
}

export interface CreateVideoInput {
  readonly admission: AdmissionContext;
  readonly model: CatalogueModel;
  readonly video: VideoRequest;
  /** The request's logger: its lines carry the request's id. */
  readonly log: Pick<Logger, 'error' | 'warn'>;
}

/**
 * Starts a video render: a job document (`queued`, its id the hold's), a BullMQ job with the same
 * id, then the hold handed to the job, which lives until the deadline plus a margin. An enqueue
 * that fails cancels the job and throws (the client is answered an error, so it must never run).
 */
export async function createVideo(deps: CreateVideoDeps, input: CreateVideoInput): Promise<MediaJob> {
  const { admission, log } = input;
  const now = deps.clock();
  const job = await deps.jobs.insertQueued(
    {
      id: admission.holdId,
      accountId: admission.key.accountId,
      keyId: admission.key.id,
      model: input.model.id,
      request: { kind: 'video', input: input.video },
      holdMicros: admission.estimateMicros,
      // Charged at these prices when the render ends, whatever the catalogue says by then.
      pricing: input.model.pricing,
      deadlineAt: new Date(now.getTime() + deps.deadlineMs),
    },
    now,
  );
  try {
    await enqueueMediaJob(deps.queues, 'video', job.id);
  } catch (err) {
    // The client is answered an error (503 while Redis is down): the job must never run, or a
    // client retrying as told would pay twice. Cancelled from `queued`, no worker or reconciler
    // takes it; its hold, still this process's lease, is released when the response ends.
    await deps.jobs.markCancelled(job.id, deps.clock()).catch((cancelErr: unknown) => {
      log.error({ err: cancelErr, jobId: job.id }, 'a video whose enqueue failed could not be cancelled');
    });
    throw err;
  }
  // The hold now belongs to the job: the worker settles or releases it. Until here it was this
  // process's lease (gone within a lease if the process died); from here it lives until the
  // deadline plus a margin (shared/src/media-jobs/video-hold.ts).
  handHoldTo(admission, 'job');
  // Its record is completed (status, cost) when the render ends, by the worker.
  if (admission.draft !== undefined) admission.draft.jobId = job.id;
  await deps.billing
    .transferHold?.({
      requestId: job.id,
      accountId: job.accountId,
      keyId: job.keyId,
      ttlMs: deps.deadlineMs + VIDEO_HOLD_MARGIN_MS,
    })
    .catch((err: unknown) => log.warn({ err }, 'video hold left a lease of this process'));
  return job;
}
