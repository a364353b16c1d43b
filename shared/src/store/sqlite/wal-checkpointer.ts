import { Worker } from 'node:worker_threads';

/**
 * The checkpointing thread's code (CommonJS, run by `eval`): its own connection to the file,
 * copying the WAL back into it every `everyMs` (PASSIVE: never waits for readers or writers; a
 * busy file is tried at the next tick). A checkpoint's writes and syncs thus happen on this
 * thread, never on the event loop that writes records.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: 0 });
db.exec('PRAGMA wal_autocheckpoint = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try { checkpoint.get(); } catch {}
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  try { checkpoint.get(); } catch {}
  db.close();
  parentPort.postMessage('stopped');
});
`;

export interface WalCheckpointer {
  /** Runs a last checkpoint and ends the thread. */
  stop(): Promise<void>;
  /** The thread itself (tests end it to see the failure handled). */
  readonly thread: Worker;
}

/**
 * Checkpoints the WAL of the SQLite file at `path` from a worker thread. The connections that
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
  const worker = new Worker(WORKER_CODE, { eval: true, workerData: { path, everyMs } });
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
