import type { Job } from 'bullmq';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { Queues } from '../../../shared/src/jobs/job-catalogue.ts';
import { QUEUE_NAMES, type QueueName } from '../../../shared/src/jobs/queue-names.ts';

/** How many jobs of a queue are in each state operators watch. */
export interface QueueCounts {
  readonly name: QueueName;
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** A failed job as operators see it: the media job it ran and why it failed. */
export interface FailedJob {
  readonly id: string;
  readonly name: string;
  /** The media job document the BullMQ job ran (its payload). */
  readonly mediaJobId: string | null;
  readonly attemptsMade: number;
  readonly failedReason: string;
  /** The last attempt's stack trace, if BullMQ kept one. */
  readonly stacktrace: string | null;
  readonly createdAt: Date;
  readonly failedAt: Date | null;
}

/** Every queue's counts (waiting includes prioritized jobs). */
export async function queueCounts(queues: Queues): Promise<QueueCounts[]> {
  return Promise.all(
    QUEUE_NAMES.map(async (name) => {
      const counts = await queues[name].getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
      const count = (state: string) => counts[state] ?? 0;
      return {
        name,
        waiting: count('waiting') + count('prioritized'),
        active: count('active'),
        delayed: count('delayed'),
        failed: count('failed'),
      };
    }),
  );
}

/** A queue's failed jobs, newest failure first. */
export async function listFailedJobs(
  queues: Queues,
  input: { queue: QueueName; limit: number; offset: number },
): Promise<FailedJob[]> {
  const jobs = await queues[input.queue].getFailed(input.offset, input.offset + input.limit - 1);
  return jobs.filter((job): job is Job => job !== undefined && job !== null).map(toFailedJob);
}

/**
 * Moves a failed job back to waiting. Its worker reloads the media job document, so a job whose
 * document already ended (failed, cancelled: the client was answered) finishes at once without
 * running again; one left `queued` or `running` (its failure could not be recorded, or it stalled
 * too often) runs again. 404 `job_not_found` when the queue has no such failed job.
 */
export async function retryFailedJob(
  queues: Queues,
  input: { queue: QueueName; jobId: string },
): Promise<void> {
  const job = await failedJob(queues, input);
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
}

/** Removes a failed job (its evidence) for good. 404 `job_not_found`. */
export async function discardFailedJob(
  queues: Queues,
  input: { queue: QueueName; jobId: string },
): Promise<void> {
  const job = await failedJob(queues, input);
  await job.remove();
}

async function failedJob(queues: Queues, input: { queue: QueueName; jobId: string }): Promise<Job> {
  const job = await queues[input.queue].getJob(input.jobId);
  if (job === undefined || job === null || !(await job.isFailed())) {
    throw new AppError(
      404,
      'invalid_request_error',
      'job_not_found',
      `The ${input.queue} queue has no failed job \`${input.jobId}\`.`,
    );
  }
  return job;
}

function toFailedJob(job: Job): FailedJob {
  const mediaJobId = (job.data as { jobId?: unknown } | null)?.jobId;
  return {
    id: job.id ?? '',
    name: job.name,
    mediaJobId: typeof mediaJobId === 'string' ? mediaJobId : null,
    attemptsMade: job.attemptsMade,
    failedReason: job.failedReason ?? '',
    stacktrace: job.stacktrace?.at(-1) ?? null,
    createdAt: new Date(job.timestamp),
    failedAt: job.finishedOn === undefined ? null : new Date(job.finishedOn),
  };
}
