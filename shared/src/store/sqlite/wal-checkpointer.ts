import { Worker } from 'node:worker_threads';

export interface WalCheckpointer {
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
  /** The thread itself (tests end it to see the failure handled). */
  readonly thread: Worker;
}

/**
 * Checkpoints the WAL of the SQLite file at `path` from a worker thread (./wal-checkpointer-worker.ts). The connections that
 * write keep a large `wal_autocheckpoint` as a backstop (should the thread fall behind), so the
 * WAL stays bounded either way. A thread that fails or ends before `stop` (it could not open the
 * file, it was ended) is told to `onLost` once, with its error when it had one: the caller hands
 * checkpointing back to its writers.
 */
export function startWalCheckpointer(
  path: string,
  everyMs: number,
  onLost: (err: unknown) => void = () => {},
): WalCheckpointer {
  const worker = new Worker(new URL('./wal-checkpointer-worker.ts', import.meta.url), {
    workerData: { path, everyMs },
  });
  // It never keeps a process alive.
  worker.unref();
  let exited = false;
  let stopping = false;
  let failure: unknown;
  worker.on('error', (err) => {
    failure = err;
  });
  worker.once('exit', (code) => {
    exited = true;
    if (!stopping) onLost(failure ?? new Error(`the WAL checkpointing thread ended (exit code ${code})`));
  });
  let stopped: Promise<void> | undefined;
  return {
    thread: worker,
    stop() {
      stopping = true;
      stopped ??= new Promise<void>((resolve) => {
        if (exited) return resolve();
        worker.once('message', () => {
          void worker.terminate().then(() => resolve());
        });
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      });
      return stopped;
    },
  };
}
