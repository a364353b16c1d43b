import { type DefaultJobOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
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

export type Queues = Readonly<Record<QueueName, Queue>>;

/** Opens a producer handle on every queue, sharing one Redis connection. */
export function createQueues(connection: Redis, prefix: string): Queues {
  const entries = QUEUE_NAMES.map((name) => [
    name,
    new Queue(name, { connection, prefix, defaultJobOptions: QUEUE_JOB_OPTIONS[name] }),
  ]);
  return Object.freeze(Object.fromEntries(entries)) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((queue) => queue.close()));
}
