/** When a group commit writes (the scheduling of settlement-batcher.ts, for other writers). */
export interface GroupCommitOptions {
  /** The longest an item waits in memory before its batch is written. */
  readonly flushMs: number;
  /** The most items one batch holds; this many waiting start a batch at the next turn of the loop. */
  readonly maxBatch: number;
}

/**
 * Group commit: items are collected in memory and written by `write` in batches, one batch at a
 * time, off the path of whoever added them: a batch starts when the timer fires (`flushMs` after
 * the first waiting item), or at the next check phase once `maxBatch` wait or an item added with
 * `addSoon` does (never in the stack of the caller that filled it). A longer queue is written in
 * batches of `maxBatch` back to back.
 * `flush` waits for what was queued before it; `close` flushes and stops. `write` failing is the
 * caller's to handle (it is told through `onError`); the batch is not retried here.
 */
export class GroupCommit<T> {
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #onError: (err: unknown, batch: readonly T[]) => void;
  readonly #flushMs: number;
  readonly #maxBatch: number;
  #queue: T[] = [];
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  /** The queue's first items up to here include one that should not wait for the timer (`addSoon`). */
  #hurriedUpTo = 0;

  constructor(
    write: (batch: T[]) => Promise<void>,
    onError: (err: unknown, batch: readonly T[]) => void,
    options: GroupCommitOptions,
  ) {
    if (!Number.isSafeInteger(options.maxBatch) || options.maxBatch < 1)
      throw new RangeError(`maxBatch must be a positive integer, not ${options.maxBatch}`);
    this.#write = write;
    this.#onError = onError;
    this.#flushMs = options.flushMs;
    this.#maxBatch = options.maxBatch;
  }

  /** Items waiting to be written (the batch being written excluded). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Whether any item waits or is being written. */
  get pending(): boolean {
    return this.#queue.length > 0 || this.#running !== null;
  }

  add(item: T): void {
    this.#queue.push(item);
    this.#schedule();
  }

  /**
   * Adds an item whose batch starts at the next check phase (or, while one is being written, as
   * soon as it ends) instead of after `flushMs`: the items waiting with it go too. Never in the
   * stack of the caller.
   */
  addSoon(item: T): void {
    this.#queue.push(item);
    this.#hurriedUpTo = this.#queue.length;
    this.#schedule();
  }

  /** Resolves once every item added before the call was written (or failed). */
  async flush(): Promise<void> {
    let rounds = Math.ceil(this.#queue.length / this.#maxBatch) + 1;
    while (rounds > 0 && (this.#running !== null || this.#queue.length > 0)) {
      if (this.#running !== null) await this.#running;
      else {
        await this.#start();
        rounds -= 1;
      }
    }
  }

  /** Writes what waits and cancels the pending start. */
  async close(): Promise<void> {
    await this.flush();
    this.#cancelPending();
  }

  #cancelPending(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#immediate = null;
  }

  #schedule(): void {
    if (this.#running !== null || this.#immediate !== null || this.#queue.length === 0) return;
    if (this.#hurriedUpTo > 0 || this.#queue.length >= this.#maxBatch) {
      this.#cancelPending(); // The timer, should one be set: this batch starts sooner.
      this.#immediate = setImmediate(() => {
        this.#immediate = null;
        void this.#start();
      });
      return;
    }
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => void this.#start(), this.#flushMs);
    // A process exits without waiting for it: a clean stop writes the queue with `close`.
    this.#timer.unref();
  }

  #start(): Promise<void> {
    if (this.#running !== null) return this.#running;
    this.#cancelPending();
    const batch = this.#queue.splice(0, this.#maxBatch);
    // A hurried item beyond this batch hurries the next one.
    this.#hurriedUpTo = Math.max(0, this.#hurriedUpTo - batch.length);
    if (batch.length === 0) return Promise.resolve();
    const written = this.#write(batch).catch((err: unknown) => this.#onError(err, batch));
    this.#running = written.finally(() => {
      this.#running = null;
      this.#schedule();
    });
    return this.#running;
  }
}
