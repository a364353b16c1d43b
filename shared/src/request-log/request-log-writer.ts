import type { Logger } from '../logging/logger.ts';
import {
  countDroppedQueueFull,
  countDroppedUnwritten,
  trackRequestLogBacklog,
} from '../observability/request-log-metrics.ts';
import { GroupCommit } from '../runtime/group-commit.ts';
import type { RequestLogPage, RequestLogQuery, RequestLogStore } from './request-log-store.ts';
import type { RequestCompletion, RequestRecord } from './request-record.ts';

export interface RequestLogWriterOptions {
  /** The longest a record waits in memory before its batch is written; default `REQUEST_LOG_FLUSH_MS`. */
  readonly flushMs?: number;
  /** Records per batch (one store transaction); default `REQUEST_LOG_BATCH`. */
  readonly maxBatch?: number;
  /** Records that may wait; more are dropped and counted. Default `REQUEST_LOG_MAX_QUEUED`. */
  readonly maxQueued?: number;
}

/**
 * Records a batch holds at most: two seconds of a busy api (5,000 requests a second) in one
 * commit. A commit's cost is mostly the index pages it dirties (one per key of the batch, written
 * to the WAL and checkpointed), the same for 2,000 records as for 10,000: a record costs about a
 * quarter less in batches of 10,000 than of 2,000 (bench/REQUEST-LOG.md, "Write cost").
 */
export const REQUEST_LOG_BATCH = 10_000;
/**
 * The longest a record waits in memory: how late another replica may see it (the api that
 * answered reads its own writes at once). Two seconds let a busy api fill its batches.
 */
export const REQUEST_LOG_FLUSH_MS = 2_000;
/** Records that may wait (five batches); more are dropped and counted. */
export const REQUEST_LOG_MAX_QUEUED = 50_000;

/** How often a failing store is logged, at most. */
const FAILURE_LOG_EVERY_MS = 10_000;

/**
 * Writes request records off the request's path (docs/request-log.md): `record` queues and
 * returns at once; batches are written by group commit. A queue at its bound, or a batch the store
 * refuses, loses its records, counted in `gateway_request_log_dropped_total`: no request ever
 * waits for the log or fails because of it. `close` writes what waits (a graceful stop).
 */
export class RequestLogWriter {
  readonly #store: RequestLogStore;
  readonly #logger: Logger;
  readonly #maxQueued: number;
  readonly #commit: GroupCommit<RequestRecord>;
  readonly #untrack: () => void;
  #closed = false;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(store: RequestLogStore, logger: Logger, options: RequestLogWriterOptions = {}) {
    this.#store = store;
    this.#logger = logger;
    this.#maxQueued = options.maxQueued ?? REQUEST_LOG_MAX_QUEUED;
    this.#commit = new GroupCommit<RequestRecord>(
      (batch) => store.insertMany(batch),
      (err, batch) => this.#lost(err, batch.length),
      { flushMs: options.flushMs ?? REQUEST_LOG_FLUSH_MS, maxBatch: options.maxBatch ?? REQUEST_LOG_BATCH },
    );
    this.#untrack = trackRequestLogBacklog(() => this.#commit.waiting);
  }

  get store(): RequestLogStore {
    return this.#store;
  }

  /**
   * Queues a record; never throws, never waits. A video's (it started a job) is written at the
   * next turn of the loop with what waits, not after `flushMs`: the worker that completes it when
   * the render ends finds it, and its job's status and its record agree within a moment.
   */
  record(record: RequestRecord): void {
    if (this.#closed || this.#commit.waiting >= this.#maxQueued) {
      countDroppedQueueFull();
      return;
    }
    if (record.jobId != null) this.#commit.addSoon(record);
    else this.#commit.add(record);
  }

  /**
   * Completes a stored record (a video's render ended). The record may still be in memory (it was
   * queued at the 202): it is written first. Failures are logged, never thrown.
   */
  async completeJob(jobId: string, completion: RequestCompletion): Promise<boolean> {
    try {
      if (await this.#store.completeJob(jobId, completion)) return true;
      await this.#commit.flush();
      return await this.#store.completeJob(jobId, completion);
    } catch (err) {
      this.#lost(err, 0);
      return false;
    }
  }

  /**
   * A record by id, as the store has it, with this process's own writes read: an id not found
   * while records wait in memory is looked for again once they are written (a request just
   * answered here is found at once, not a batch later).
   */
  async findById(id: string): Promise<RequestRecord | null> {
    const found = await this.#store.findById(id);
    if (found !== null || !this.#commit.pending) return found;
    await this.#commit.flush();
    return this.#store.findById(id);
  }

  /** A page of the store's records, after what waits in memory here is written (as `findById`). */
  async list(query: RequestLogQuery): Promise<RequestLogPage> {
    if (this.#commit.pending) await this.#commit.flush();
    return this.#store.list(query);
  }

  /** Resolves once what was queued before the call is written (or dropped). */
  flush(): Promise<void> {
    return this.#commit.flush();
  }

  /** Writes what waits; later records are dropped (counted). The store stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#commit.close();
    this.#untrack();
  }

  #lost(err: unknown, count: number): void {
    if (count > 0) countDroppedUnwritten(count);
    const now = Date.now();
    if (now - this.#loggedAt < FAILURE_LOG_EVERY_MS) return;
    this.#loggedAt = now;
    this.#logger.warn({ err, records: count }, 'request log: records could not be written (dropped)');
  }
}
