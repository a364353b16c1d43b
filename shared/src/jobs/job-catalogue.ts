import { type DefaultJobOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { enqueueTraced, type JobTraceCarrier } from '../observability/job-observation.ts';
import { withinMs } from '../runtime/within.ts';
import { QUEUE_NAMES, type QueueName } from './queue-names.ts';

/**
 * Job options per queue. Failed jobs are kept (evidence for operators); completed ones are trimmed.
 * Provider calls retry with exponential backoff; processors throw `UnrecoverableError` for failures
 * a retry cannot fix.
 */
export const QUEUE_JOB_OPTIONS: Readonly<Record<QueueName, DefaultJobOptions>> = Object.freeze({
  image: { attempts: 3, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 }, ...retention() },
  speech: { attempts: 3, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 }, ...retention() },
  transcription: { attempts: 3, backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 }, ...retention() },
  video: { attempts: 5, backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 }, ...retention() },
});

function retention(): Pick<DefaultJobOptions, 'removeOnComplete' | 'removeOnFail'> {
  return { removeOnComplete: { age: 24 * 3600, count: 10_000 }, removeOnFail: false };
}

/**
 * Every job the workers run: its name, queue and payload. A payload carries the id of the job
 * document only; the worker reloads the document, which is the source of truth. The BullMQ job id
 * is that document id, so enqueueing twice is a no-op.
 */
export const MEDIA_JOBS = {
  'image.generate': { queue: 'image' },
  'speech.synthesize': { queue: 'speech' },
  'transcription.transcribe': { queue: 'transcription' },
  'video.render': { queue: 'video' },
} as const satisfies Record<string, { queue: QueueName }>;

export type MediaJobName = keyof typeof MEDIA_JOBS;

/** A job's data: the id of its document, and the trace it was enqueued in (when traced). */
export interface MediaJobPayload extends JobTraceCarrier {
  readonly jobId: string;
}

/** The job that runs a media job document of the given kind. */
export const JOB_NAME_BY_QUEUE: Readonly<Record<QueueName, MediaJobName>> = Object.freeze({
  image: 'image.generate',
  speech: 'speech.synthesize',
  transcription: 'transcription.transcribe',
  video: 'video.render',
});

export type Queues = Readonly<Record<QueueName, Queue>>;

/** Enqueues the job of a media job document (idempotent: the BullMQ job id is the document id). */
export async function enqueueMediaJob(queues: Queues, queue: QueueName, jobId: string): Promise<void> {
  await enqueueTraced(queue, jobId, (trace) => {
    const payload: MediaJobPayload = { jobId, ...trace };
    return queues[queue].add(JOB_NAME_BY_QUEUE[queue], payload, { jobId });
  });
}

/** Opens a producer handle on every queue, sharing one Redis connection. */
export function createQueues(connection: Redis, prefix: string): Queues {
  const entries = QUEUE_NAMES.map((name) => {
    const queue = new Queue(name, { connection, prefix, defaultJobOptions: QUEUE_JOB_OPTIONS[name] });
    // Connection trouble surfaces where it matters, as a failed `add`; the event alone is noise.
    queue.on('error', () => undefined);
    return [name, queue];
  });
  return Object.freeze(Object.fromEntries(entries)) as Queues;
}

/** Closes the producers; bounded, so a process whose Redis is gone still shuts down. */
export async function closeQueues(queues: Queues, timeoutMs = 2_000): Promise<void> {
  await withinMs(Promise.all(Object.values(queues).map((queue) => queue.close())), timeoutMs);
}
