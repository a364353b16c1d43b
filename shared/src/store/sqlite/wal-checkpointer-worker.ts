/**
 * The checkpointing thread (./wal-checkpointer.ts): its own connection to the file, copying the
 * WAL back into it every `everyMs`, so a checkpoint's writes and syncs never happen on the event
 * loop that writes records. A message asks for a last checkpoint and the end.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointEvery } from './wal-checkpoints.ts';

const port = parentPort;
if (port !== null) {
  const { path, everyMs } = workerData as { path: string; everyMs: number };
  const db = new DatabaseSync(path, { timeout: 0 });
  db.exec('PRAGMA wal_autocheckpoint = 0');
  const checkpoints = checkpointEvery(db, everyMs);
  port.once('message', () => {
    checkpoints.stop();
    db.close();
    port.postMessage('stopped');
  });
}
