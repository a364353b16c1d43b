import type { Logger } from '../logging/logger.ts';
import type { RequestLogStore } from './request-log-store.ts';

export interface RetentionOptions {
  readonly retentionDays: number;
  /** Records deleted by the first step (later steps adapt); default RETENTION_BATCH. */
  readonly batch?: number;
  readonly now?: () => number;
}

/** Records deleted by the first step. */
export const RETENTION_BATCH = 50;
/** The longest a step should take (the event loop is blocked that long on SQLite). */
const STEP_TARGET_MS = 10;
const MIN_BATCH = 10;
const MAX_BATCH = 5_000;

/**
 * One retention pass: deletes the records older than the retention in steps, giving the event
 * loop back between steps (`setImmediate`). On SQLite a step drops one partition (a day's table);
 * on MongoDB it deletes a batch whose size follows the last step's time: halved when it took
 * longer than 10 ms, doubled when it took under a quarter of that. Answers how many records it
 * deleted.
 */
export async function runRetentionPass(store: RequestLogStore, options: RetentionOptions): Promise<number> {
  const now = options.now ?? Date.now;
  let batch = options.batch ?? RETENTION_BATCH;
  const beforeMs = now() - options.retentionDays * 24 * 3600 * 1000;
  let deleted = 0;
  for (;;) {
    const started = performance.now();
    const step = await store.retentionStep(beforeMs, batch);
    const took = performance.now() - started;
    deleted += step.deleted;
    if (!step.more) return deleted;
    if (took > STEP_TARGET_MS) batch = Math.max(MIN_BATCH, Math.floor(batch / 2));
    else if (took < STEP_TARGET_MS / 4) batch = Math.min(MAX_BATCH, batch * 2);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** How often retention runs. */
const EVERY_MS = 3600 * 1000;

/**
 * Runs a retention pass at start and every hour (SQLite; a MongoDB collection's TTL index deletes
 * on its own, the pass removes what it has not reached yet). Answers the stop function.
 */
export function startRetention(
  store: RequestLogStore,
  logger: Logger,
  options: RetentionOptions,
): () => void {
  let running: Promise<void> | null = null;
  const pass = () => {
    if (running !== null) return;
    running = runRetentionPass(store, options)
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted }, 'request log: old records deleted');
      })
      .catch((err: unknown) => logger.warn({ err }, 'request log: retention pass failed'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(pass, 5_000);
  first.unref();
  const timer = setInterval(pass, EVERY_MS);
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
