import { Worker } from 'node:worker_threads';
import type { RequestRecord } from '../../request-log/request-record.ts';
import { RequestBatchPacker } from './request-log-batch-codec.ts';
import type { WriteThreadData, WriteThreadMessage, WriteThreadReply } from './request-log-write-worker.ts';

/** A batch the write thread was sent and has not answered yet. */
interface Sent {
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * The request log's batches written on a thread of their own (./request-log-write-worker.ts), so
 * a batch's SQLite work (tens to hundreds of milliseconds at a busy mix of keys) never holds the
 * api's event loop; batches travel packed (./request-log-batch-codec.ts); the file's other
 * connection (the caller's) reads what it commits. `write` resolves once
 * the batch is committed and rejects when it was not (its records are the caller's to count as
 * lost). A thread that fails or ends before `close` is told to `onLost` once; every write then
 * rejects, and the caller writes on its own connection instead. The thread also checkpoints the
 * file's WAL (the process then starts no other thread for it).
 */
export class RequestLogWriteThread {
  readonly #worker: Worker;
  readonly #onLost: (err: Error) => void;
  readonly #sent = new Map<number, Sent>();
  readonly #packer = new RequestBatchPacker();
  #next = 0;
  #lost: Error | null = null;
  #closing: Promise<void> | null = null;

  constructor(data: WriteThreadData, onLost: (err: Error) => void) {
    this.#worker = new Worker(new URL('./request-log-write-worker.ts', import.meta.url), {
      workerData: data,
    });
    // It never keeps a process alive: a clean stop writes the queue and closes it.
    this.#worker.unref();
    this.#worker.on('message', (reply: WriteThreadReply) => this.#answered(reply));
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.once('exit', (code) =>
      this.#fail(new Error(`the request log's write thread ended (exit code ${code})`)),
    );
    this.#onLost = onLost;
  }

  /** Whether the thread is gone (failed or ended before `close`). */
  get lost(): boolean {
    return this.#lost !== null;
  }

  write(records: readonly RequestRecord[]): Promise<void> {
    if (this.#lost !== null) return Promise.reject(this.#lost);
    if (this.#closing !== null) return Promise.reject(new Error("the request log's write thread is closed"));
    this.#next += 1;
    const id = this.#next;
    const { batch, transfer } = this.#packer.pack(records);
    return new Promise<void>((resolve, reject) => {
      this.#sent.set(id, { resolve, reject });
      this.#worker.postMessage({ kind: 'write', id, batch } satisfies WriteThreadMessage, transfer);
    });
  }

  /** Waits for the batches sent, closes the thread's connection and ends it. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      if (this.#lost !== null) return resolve();
      this.#worker.once('exit', () => resolve());
      this.#worker.postMessage({ kind: 'close' } satisfies WriteThreadMessage);
    });
    return this.#closing;
  }

  /** The thread itself (tests end it to see the loss handled). */
  get thread(): Worker {
    return this.#worker;
  }

  #answered(reply: WriteThreadReply): void {
    if (reply.kind === 'closed') {
      void this.#worker.terminate();
      return;
    }
    const sent = this.#sent.get(reply.id);
    this.#sent.delete(reply.id);
    if (reply.kind === 'written') sent?.resolve();
    else sent?.reject(new Error(reply.message));
  }

  #fail(err: Error): void {
    if (this.#lost !== null || (this.#closing !== null && this.#sent.size === 0)) return;
    this.#lost = err;
    for (const sent of this.#sent.values()) sent.reject(err);
    this.#sent.clear();
    this.#onLost(err);
  }
}
