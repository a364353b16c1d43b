import type { DatabaseSync } from 'node:sqlite';

/**
 * Copies the WAL of `db`'s file back into it every `everyMs` (PASSIVE: never waits for readers or
 * writers; a busy file is tried at the next tick), on the thread that calls it. `stop` runs a last
 * checkpoint and ends the timer. Used by the checkpointing thread (./wal-checkpointer-worker.ts)
 * and by the request log's write thread (./request-log-write-worker.ts).
 */
export function checkpointEvery(db: DatabaseSync, everyMs: number): { stop(): void } {
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const run = () => {
    try {
      checkpoint.get();
    } catch {
      // A busy or closing file: tried at the next tick, or by the next connection to open it.
    }
  };
  const timer = setInterval(run, everyMs);
  return {
    stop() {
      clearInterval(timer);
      run();
    },
  };
}
