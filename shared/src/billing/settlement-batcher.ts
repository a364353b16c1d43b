import { observeSettlementBatch, trackSettlementBacklog } from '../observability/settlement-observation.ts';
import type { BillingDeps } from './billing-deps.ts';
import { type DeferredSettlement, settleBatch } from './settle-batch.ts';
import { type SettleInput, settleCharge, validateSettleInput } from './settle-charge.ts';

/** When deferred settlements are written (docs/money-core.md, "Group commit"). */
export interface SettlementBatchOptions {
  /** The longest a charge waits in memory before its batch is written; default 50 ms (SETTLEMENT_FLUSH_MS). */
  readonly flushMs?: number;
  /**
   * The most charges one batch holds; a batch is written without waiting for the timer (at the
   * next turn of the event loop) when this many wait, and a longer queue is written in batches of
   * this size back to back.
   * Default 250 (DEFAULT_MAX_BATCH).
   */
  readonly maxBatch?: number;
}

interface Queued {
  readonly item: DeferredSettlement;
  /** Order of arrival: `flush` waits for the charges that arrived before it. */
  readonly seq: number;
  /** Failed batch writes this charge took part in. */
  attempts: number;
  /** `Date.now()` before which it is not retried. */
  notBefore: number;
}

// A batch that could not be recorded is retried after 100, 200, 400 ms, then settled entry by entry.
const RETRIES = 3;
const RETRY_BASE_MS = 100;
/**
 * The most charges in one batch, by default. A batch is one store transaction: on SQLite it holds
 * the file's write lock, and blocks this process's event loop, for its whole length (about 10 µs
 * a charge), so a backlog is written in batches of this size back to back rather than in one.
 */
export const DEFAULT_MAX_BATCH = 250;
/** A queue longer than this is logged as a backlog, at most every BACKLOG_WARNING_EVERY_MS. */
const BACKLOG_WARNING = 10_000;
const BACKLOG_WARNING_EVERY_MS = 10_000;

/**
 * Collects charges in memory and writes them in batches, one batch at a time, off the response
 * path. A charge still in memory when the process dies is lost (an under-charge); one written as
 * pending is completed by recovery; `close` writes everything before a clean shutdown. The hold of
 * a queued charge stays owned by this process, so its lease is renewed until the batch's publish
 * drops it (snapshots.ts); a charge that could not be recorded at all stops being renewed.
 */
/** Charges that may wait unwritten before settling callers are made to wait for the store. */
export const HIGH_WATER = 5_000;

/** A charge offered after `close` (the process is stopping): refused, nothing queued. */
export class SettlementClosedError extends Error {
  constructor() {
    super('billing is closed: no further settlement is accepted');
    this.name = 'SettlementClosedError';
  }
}

export class SettlementBatcher {
  readonly #deps: BillingDeps;
  readonly #flushMs: number;
  readonly #maxBatch: number;
  #queue: Queued[] = [];
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** A full batch's write, due at the next check phase (never in the stack of the charge that filled it). */
  #immediate: NodeJS.Immediate | null = null;
  #seq = 0;
  #closed = false;
  #warnedAt = Number.NEGATIVE_INFINITY;
  /** Stops reporting this queue in `gateway_settlement_backlog`. */
  readonly #untrack = trackSettlementBacklog(() => this.#queue.length);

  constructor(deps: BillingDeps, options: SettlementBatchOptions = {}) {
    this.#deps = deps;
    this.#flushMs = options.flushMs ?? 50;
    this.#maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isSafeInteger(this.#maxBatch) || this.#maxBatch < 1)
      throw new RangeError(`maxBatch must be a positive integer, not ${this.#maxBatch}`);
  }

  /**
   * Queues a charge; throws on invalid input, or once closed. The promise resolves at once while
   * fewer than `HIGH_WATER` charges wait, and otherwise only when the charge is written: callers
   * that await it slow down to the store's pace, so the backlog (memory, and what a clean
   * shutdown must write) stays bounded.
   */
  enqueue(input: SettleInput): Promise<void> {
    if (this.#closed) throw new SettlementClosedError();
    validateSettleInput(input);
    this.#seq += 1;
    const item = { input, at: input.at ?? this.#deps.clock() };
    this.#queue.push({ item, seq: this.#seq, attempts: 0, notBefore: 0 });
    this.#schedule();
    return this.#queue.length > HIGH_WATER ? this.flush() : Promise.resolve();
  }

  /** Resolves once every charge queued before the call is written (or, failing that, logged). */
  async flush(): Promise<void> {
    const upTo = this.#seq;
    for (;;) {
      if (this.#running !== null) {
        await this.#running;
        continue;
      }
      const waiting = this.#queue.filter((queued) => queued.seq <= upTo);
      if (waiting.length === 0) return;
      const wait = earliest(waiting) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else await this.#start();
    }
  }

  /** Refuses further charges and writes the queued ones. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    this.#cancelPending();
    this.#untrack();
  }

  /** A batch is starting (or nothing will): the timer's or the full batch's pending start goes. */
  #cancelPending(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#immediate !== null) clearImmediate(this.#immediate);
    this.#immediate = null;
  }

  #schedule(): void {
    // A full batch already starts at the next turn: nothing to count until then.
    if (this.#running !== null || this.#immediate !== null || this.#queue.length === 0) return;
    const now = Date.now();
    if (this.#queue.length >= this.#maxBatch && this.#eligible(now) >= this.#maxBatch) {
      // On the next turn, not now: the charge that fills a batch is queued by a request on its way
      // to its answer, which would otherwise wait for the batch's write (synchronous on SQLite).
      this.#immediate = setImmediate(() => {
        this.#immediate = null;
        void this.#start();
      });
      return;
    }
    if (this.#timer !== null) return;
    const delay = Math.max(this.#flushMs, earliest(this.#queue) - now);
    this.#timer = setTimeout(() => void this.#start(), delay);
    // A process exits without waiting for it: a clean shutdown writes the queue with `close`.
    this.#timer.unref();
  }

  #start(): Promise<void> {
    if (this.#running !== null) return this.#running;
    this.#cancelPending();
    const batch = this.#take(Date.now());
    if (this.#queue.length > BACKLOG_WARNING && Date.now() - this.#warnedAt >= BACKLOG_WARNING_EVERY_MS) {
      this.#warnedAt = Date.now();
      this.#deps.logger.warn({ waiting: this.#queue.length }, 'settlement backlog');
    }
    if (batch.length === 0) {
      this.#schedule();
      return Promise.resolve();
    }
    const written = this.#write(batch).catch((err: unknown) => {
      this.#deps.logger.error({ err, charges: batch.length }, 'settlement batch failed unexpectedly');
    });
    this.#running = written.finally(() => {
      this.#running = null;
      this.#schedule();
    });
    return this.#running;
  }

  #eligible(now: number): number {
    return this.#queue.filter((queued) => queued.notBefore <= now).length;
  }

  /** Takes the charges due, oldest first, at most `maxBatch`. */
  #take(now: number): Queued[] {
    const batch: Queued[] = [];
    const rest: Queued[] = [];
    for (const queued of this.#queue) {
      (queued.notBefore <= now && batch.length < this.#maxBatch ? batch : rest).push(queued);
    }
    this.#queue = rest;
    return batch;
  }

  async #write(batch: Queued[]): Promise<void> {
    const started = performance.now();
    try {
      await settleBatch(
        this.#deps,
        batch.map((queued) => queued.item),
      );
      observeSettlementBatch(batch.length, (performance.now() - started) / 1000, true);
    } catch (err) {
      observeSettlementBatch(batch.length, (performance.now() - started) / 1000, false);
      await this.#retryLater(batch, err);
    }
  }

  /** After the store recorded nothing: the batch waits and is retried; a charge out of retries goes alone. */
  async #retryLater(batch: Queued[], err: unknown): Promise<void> {
    const now = Date.now();
    const again: Queued[] = [];
    const alone: Queued[] = [];
    for (const queued of batch) (queued.attempts < RETRIES ? again : alone).push(queued);
    for (const queued of again) {
      queued.attempts += 1;
      queued.notBefore = now + RETRY_BASE_MS * 2 ** (queued.attempts - 1);
    }
    this.#queue.unshift(...again);
    this.#deps.logger.error(
      { err, charges: batch.length, retried: again.length, alone: alone.length },
      'settlement batch could not be recorded',
    );
    await this.#settleEach(alone.map((queued) => queued.item));
  }

  /** The single-entry path, for charges no batch could record. */
  async #settleEach(items: readonly DeferredSettlement[]): Promise<void> {
    const results = await Promise.allSettled(
      items.map(({ input, at }) => settleCharge(this.#deps, { ...input, at })),
    );
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      const { input, at } = items[i] as DeferredSettlement;
      // Its hold is no longer renewed: it expires within its lease.
      this.#deps.leases.forget([input.requestId]);
      // The details needed to charge it by hand: the money core could not record it.
      const charge = { ...input, costMicros: String(input.costMicros), at: at.toISOString() };
      this.#deps.logger.error({ err: result.reason, charge }, 'a deferred settlement could not be recorded');
    });
  }
}

/** When the first of the queued charges may be written (`Date.now()` time). */
function earliest(queue: readonly Queued[]): number {
  let first = Number.POSITIVE_INFINITY;
  for (const queued of queue) first = Math.min(first, queued.notBefore);
  return first;
}
