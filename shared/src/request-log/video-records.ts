import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { MediaJobError } from '../media-jobs/media-job.ts';
import { openRequestLog } from './open-request-log.ts';
import type { RequestLogStore } from './request-log-store.ts';
import type { RequestCompletion } from './request-record.ts';

/** Completes the request log record of the request that started a video, when its render ends. */
export interface VideoRecords {
  /** In the background (never awaited by the job): the render ended with this outcome. */
  complete(jobId: string, completion: RequestCompletion): void;
  /** Waits for the completions under way and closes the store. */
  close(): Promise<void>;
}

/** What a failed render's record says: the job error's status and code, nothing charged. */
export function failedRender(error: MediaJobError): RequestCompletion {
  return { status: error.status, outcome: 'failed', errorCode: String(error.code), costMicros: 0n };
}

/**
 * Tries before a record the api has not written yet is given up (5 s: the api writes a video's
 * record at once, behind at most the batch its write thread is writing, a few hundred ms).
 */
const TRIES = 10;
const RETRY_MS = 500;

/**
 * The worker's side of the request log: the store is opened on the first render that ends (a
 * worker that renders no video never opens it). A record not written yet (the api writes in
 * batches) is retried for a few seconds; a failure is logged and never fails the job.
 */
export function createVideoRecords(
  config: Pick<Config, 'store' | 'requestLog'>,
  logger: Logger,
  open: () => Promise<RequestLogStore> = () => openRequestLog(config, logger),
): VideoRecords {
  let store: Promise<RequestLogStore> | null = null;
  const pending = new Set<Promise<void>>();
  const completeOne = async (jobId: string, completion: RequestCompletion) => {
    store ??= open();
    const opened = await store;
    for (let attempt = 1; attempt <= TRIES; attempt += 1) {
      if (await opened.completeJob(jobId, completion)) return;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    logger.warn({ jobId }, 'request log: no record of the video’s request to complete');
  };
  return {
    complete(jobId, completion) {
      const done: Promise<void> = completeOne(jobId, completion)
        .catch((err: unknown) => {
          store = null;
          logger.warn({ err, jobId }, 'request log: the video’s record could not be completed');
        })
        .finally(() => pending.delete(done));
      pending.add(done);
    },
    async close() {
      await Promise.allSettled([...pending]);
      if (store !== null) await (await store.catch(() => null))?.close();
    },
  };
}
