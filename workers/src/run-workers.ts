import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName } from '../../shared/src/jobs/queue-names.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { observeStalledJob, runObservedJob } from '../../shared/src/observability/job-observation.ts';
import { withinMs } from '../../shared/src/runtime/within.ts';
import type { ProcessorTable } from './processors/processor-table.ts';

export interface RunWorkersOptions {
  readonly connection: Redis;
  readonly prefix: string;
  readonly queues: readonly QueueName[];
  readonly concurrency: Readonly<Record<QueueName, number>>;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  readonly processors: ProcessorTable;
  readonly logger: Logger;
}

/** Starts one BullMQ worker per queue role; each dispatches on the job name (timed, counted, traced). */
export function runWorkers(options: RunWorkersOptions): Worker[] {
  return options.queues.map((queue) => {
    const log = options.logger.child({ queue });
    const worker = new Worker(queue, (job, token) => dispatch(queue, job, token, options.processors), {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency[queue],
      autorun: true,
      ...(options.lockDurationMs === undefined ? {} : { lockDuration: options.lockDurationMs }),
      ...(options.stalledIntervalMs === undefined ? {} : { stalledInterval: options.stalledIntervalMs }),
    });
    // Listeners only log and count; state changes happen inside processors.
    worker.on('failed', (job, err) => log.warn({ jobId: job?.id, jobName: job?.name, err }, 'job failed'));
    worker.on('stalled', () => observeStalledJob(queue));
    worker.on('error', (err) => log.error({ err }, 'worker error'));
    log.info({ concurrency: options.concurrency[queue] }, 'worker started');
    return worker;
  });
}

async function dispatch(
  queue: QueueName,
  job: Job,
  token: string | undefined,
  table: ProcessorTable,
): Promise<unknown> {
  const processor = table[queue]?.[job.name];
  if (processor === undefined) {
    throw new UnrecoverableError(`no processor for job "${job.name}" on queue "${queue}"`);
  }
  return runObservedJob(queue, job, () => processor(job, token));
}

/**
 * Stops every worker: no job is taken any more, the active ones may finish for up to `graceMs`
 * (default: as long as they take), then the workers close without waiting for the rest. A job
 * left unfinished keeps its BullMQ entry: once its lock lapses the stalled-job check hands it to
 * another worker (or to this one restarted), whose steps make the rerun safe.
 */
export async function closeWorkers(workers: readonly Worker[], graceMs?: number): Promise<void> {
  const finished = Promise.all(workers.map((worker) => worker.pause()));
  if (graceMs === undefined) await finished;
  else await withinMs(finished, graceMs);
  await Promise.all(workers.map((worker) => worker.close(true)));
}
