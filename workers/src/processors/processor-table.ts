import type { Job } from 'bullmq';
import type { QueueName } from '../../../shared/src/jobs/queue-names.ts';

/** Handles one job; returns its result or throws (ordinary error: retried; UnrecoverableError: not). */
export type Processor = (job: Job) => Promise<unknown>;

/** Processors by queue and job name. Each job name has exactly one processor by construction. */
export type ProcessorTable = Readonly<Partial<Record<QueueName, Readonly<Record<string, Processor>>>>>;

/**
 * The media processors, filled in by the media-jobs work (issue 5). Until a job type has its
 * processor here, such a job fails unrecoverably and is kept for inspection.
 */
export const processors: ProcessorTable = Object.freeze({});
