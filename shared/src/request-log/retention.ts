import type { Logger } from '../logging/logger.ts';
import type { RequestLogStore } from './request-log-store.ts';

export interface RetentionOptions {
  readonly retentionDays: number;
  /** Records deleted per step; small, so one step blocks the event loop a few milliseconds. */
  readonly batch?: number;
  readonly now?: () => number;
}

/** Records deleted per step by default (about 5 ms of SQLite work at ten million rows). */
export const RETENTION_BATCH = 1_000;

/**
 * One retention pass: deletes the records older than the retention in steps of `batch`, giving
 * the event loop back between steps (`setImmediate`), so no step holds it longer than one small
 * delete. Answers how many records it deleted.
 */
export async function runRetentionPass(store: RequestLogStore, options: RetentionOptions): Promise<number> {
  const now = options.now ?? Date.now;
  const batch = options.batch ?? RETENTION_BATCH;
  const beforeMs = now() - options.retentionDays * 24 * 3600 * 1000;
  let deleted = 0;
  for (;;) {
    const step = await store.deleteOlderThan(beforeMs, batch);
    deleted += step;
    if (step < batch) return deleted;
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
