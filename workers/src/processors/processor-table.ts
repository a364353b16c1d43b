import type { Job } from 'bullmq';
import { JOB_NAME_BY_QUEUE, MEDIA_JOBS } from '../../../shared/src/jobs/job-catalogue.ts';
import type { QueueName } from '../../../shared/src/jobs/queue-names.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { imageProcessor } from './image.processor.ts';
import { speechProcessor } from './speech.processor.ts';
import { transcriptionProcessor } from './transcription.processor.ts';
import { videoProcessor } from './video.processor.ts';

/**
 * Handles one job; returns its result or throws (ordinary error: retried; UnrecoverableError: not).
 * `token` is the worker's lock token, needed to move the job to delayed (video polling).
 */
export type Processor = (job: Job, token?: string) => Promise<unknown>;

/** Processors by queue and job name. */
export type ProcessorTable = Readonly<Partial<Record<QueueName, Readonly<Record<string, Processor>>>>>;

/** The media processors, one per job of the catalogue. */
export function createProcessors(deps: MediaWorkerDeps): ProcessorTable {
  const table: ProcessorTable = {
    image: { [JOB_NAME_BY_QUEUE.image]: imageProcessor(deps) },
    speech: { [JOB_NAME_BY_QUEUE.speech]: speechProcessor(deps) },
    transcription: { [JOB_NAME_BY_QUEUE.transcription]: transcriptionProcessor(deps) },
    video: { [JOB_NAME_BY_QUEUE.video]: videoProcessor(deps) },
  };
  assertEveryJobHasOneProcessor(table);
  return table;
}

/** Start-up check: every job of the catalogue has exactly one processor, on its own queue. */
export function assertEveryJobHasOneProcessor(table: ProcessorTable): void {
  const problems: string[] = [];
  for (const [name, { queue }] of Object.entries(MEDIA_JOBS)) {
    const holders = Object.entries(table).filter(([, processors]) => processors?.[name] !== undefined);
    if (holders.length !== 1 || holders[0]?.[0] !== queue) {
      problems.push(
        `${name} must have one processor on queue ${queue} (found on: ${holders.map(([q]) => q).join(', ') || 'none'})`,
      );
    }
  }
  for (const [queue, processors] of Object.entries(table)) {
    for (const name of Object.keys(processors ?? {})) {
      if (!(name in MEDIA_JOBS)) problems.push(`processor ${name} on queue ${queue} runs no catalogue job`);
    }
  }
  if (problems.length > 0)
    throw new Error(`Job catalogue and processors disagree:\n  - ${problems.join('\n  - ')}`);
}
