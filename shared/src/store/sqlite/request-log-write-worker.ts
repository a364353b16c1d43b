/**
 * The request log's write thread (./request-log-write-thread.ts): its own connection to the file,
 * writing the batches it is sent, each answered by its number once committed (or with the error
 * that rolled it back), and copying the WAL back into the file every `checkpointEveryMs` (the
 * process's one thread for the log: the opening connection starts no checkpointing thread then).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteRequestLog } from './request-log.sqlite.ts';
import { type PackedBatch, RequestBatchUnpacker } from './request-log-batch-codec.ts';
import { checkpointEvery } from './wal-checkpoints.ts';

export interface WriteThreadData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** How often the thread copies the WAL back into the file (PASSIVE: it never waits). */
  readonly checkpointEveryMs: number;
  readonly rowsPerSegment?: number;
  readonly statementsKept?: number;
}

/** A batch to write, or the request to close the connection and end. */
export type WriteThreadMessage =
  | { readonly kind: 'write'; readonly id: number; readonly batch: PackedBatch }
  | { readonly kind: 'close' };

export type WriteThreadReply =
  | { readonly kind: 'written'; readonly id: number }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string }
  | { readonly kind: 'closed' };

const port = parentPort;
if (port !== null) {
  const data = workerData as WriteThreadData;
  const log = openSqliteRequestLog({
    path: data.path,
    busyTimeoutMs: data.busyTimeoutMs,
    checkpointThread: false,
    ...(data.rowsPerSegment === undefined ? {} : { rowsPerSegment: data.rowsPerSegment }),
    ...(data.statementsKept === undefined ? {} : { statementsKept: data.statementsKept }),
  });
  const checkpoints = checkpointEvery(log.database, data.checkpointEveryMs);
  const unpacker = new RequestBatchUnpacker();
  port.on('message', (message: WriteThreadMessage) => {
    if (message.kind === 'close') {
      checkpoints.stop();
      void log.close().then(() => port.postMessage({ kind: 'closed' } satisfies WriteThreadReply));
      return;
    }
    try {
      // Unpacked first, whatever the write then does: the dictionary follows every batch sent.
      const records = unpacker.unpack(message.batch);
      log.insertNow(records);
      port.postMessage({ kind: 'written', id: message.id } satisfies WriteThreadReply);
    } catch (err) {
      const reply: WriteThreadReply = {
        kind: 'failed',
        id: message.id,
        message: err instanceof Error ? err.message : String(err),
      };
      port.postMessage(reply);
    }
  });
}
