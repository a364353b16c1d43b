import { QueueEvents } from 'bullmq';
import type { QueueName } from '../../../shared/src/jobs/queue-names.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { WaiterLeases } from '../../../shared/src/media-jobs/waiter-lease.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';
import type { RedisSettings } from '../../../shared/src/redis/redis-settings.ts';
import { withinMs } from '../../../shared/src/runtime/within.ts';

/** How often a waiting request re-reads its job even without an event (a missed event costs this). */
const FALLBACK_POLL_MS = 1_000;
/**
 * A job still `queued` this long after it was queued is queued again: its queue entry may have been
 * lost with Redis (an enqueue acknowledged just before Redis went down). Queuing is keyed by the
 * job id, so an entry that still exists is left as it is and the job never runs twice.
 */
export const REQUEUE_AFTER_MS = 3_000;

export type WaitOutcome =
  | { readonly ended: MediaJob }
  | { readonly ended: null; readonly reason: 'timeout' | 'aborted' };

/**
 * What a worker's completion event said of the job (the processor's return value), passed to the
 * waiter's `read`: it lets the caller skip reading the document back when the event already tells
 * how the job ended. Absent on the fallback poll and on failures.
 */
export type CompletionHint = Readonly<Record<string, unknown>> | undefined;

export interface WaitRequest {
  /**
   * Starts the job (enqueues it); runs once the waiter listens, so no event can come before. Run
   * again, idempotently, while the job stays `queued` (`REQUEUE_AFTER_MS`).
   */
  readonly start: () => Promise<void>;
  /** The job as it stands, given what the event that woke the waiter said (if anything). */
  readonly read: (hint: CompletionHint) => Promise<MediaJob | null>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * Lets an api request wait for its media job: one BullMQ QueueEvents listener per queue (shared by
 * all requests of the process) wakes the waiter of a job when the job completes or fails; the job
 * document, re-read then, is the source of truth.
 */
export class JobWaiter {
  readonly #connections: Redis[] = [];
  readonly #events: QueueEvents[] = [];
  readonly #wakers = new Map<string, Set<Waker>>();
  readonly #leases: Pick<WaiterLeases, 'hold' | 'release' | 'stop'>;

  /** `leases`: the leases this process holds on the jobs it waits for (waiter-lease.ts). */
  constructor(
    redis: string | RedisSettings,
    /** BullMQ's prefix (`config.queues.bullmqPrefix`). */
    prefix: string,
    queues: readonly QueueName[],
    leases: Pick<WaiterLeases, 'hold' | 'release' | 'stop'>,
  ) {
    this.#leases = leases;
    for (const queue of queues) {
      const connection = createRedis(redis, { forBullmq: true, connectionName: `api-events-${queue}` });
      const events = new QueueEvents(queue, { connection, prefix });
      events.on('completed', ({ jobId, returnvalue }) => this.#wake(jobId, hintOf(returnvalue)));
      events.on('failed', ({ jobId }) => this.#wake(jobId, undefined));
      events.on('error', () => undefined);
      this.#connections.push(connection);
      this.#events.push(events);
    }
  }

  async start(): Promise<void> {
    await Promise.all(this.#events.map((events) => events.waitUntilReady()));
  }

  /**
   * Listens for the job's end, starts it, and resolves once `read()` shows it left
   * `queued`/`running`, or on timeout or abort. The job is read on each wake-up (and every
   * FALLBACK_POLL_MS without one), not right after starting it: it cannot have ended unseen then.
   * While it waits this process holds the job's waiter lease, taken before the job is started: a
   * worker runs the job only while someone waits for it.
   */
  async waitForEnd(jobId: string, request: WaitRequest): Promise<WaitOutcome> {
    await this.#leases.hold(jobId);
    try {
      return await this.#wait(jobId, request);
    } finally {
      await this.#leases.release(jobId);
    }
  }

  async #wait(jobId: string, request: WaitRequest): Promise<WaitOutcome> {
    const { read, timeoutMs, signal } = request;
    const deadline = Date.now() + timeoutMs;
    let start: (() => Promise<void>) | null = request.start;
    let queuedAt = Date.now();
    let hint: CompletionHint;
    let deadlineReached = false;
    for (;;) {
      if (signal.aborted) return { ended: null, reason: 'aborted' };
      const left: number = deadlineReached ? 0 : deadline - Date.now();
      const waitMs = Math.max(0, Math.min(left, FALLBACK_POLL_MS));
      // Listen before starting or reading, so an event in between is not missed.
      const next = this.#nextSignal(jobId, waitMs, signal);
      let job: MediaJob | null = null;
      try {
        if (start === null) job = await read(hint);
        else await start();
      } catch (err) {
        next.cancel();
        throw err;
      }
      start = null;
      if (job !== null && job.status !== 'queued' && job.status !== 'running') {
        next.cancel();
        return { ended: job };
      }
      if (left <= 0) {
        next.cancel();
        return { ended: null, reason: 'timeout' };
      }
      if (job?.status === 'queued' && Date.now() - queuedAt >= REQUEUE_AFTER_MS) {
        queuedAt = Date.now();
        // A failure (Redis still down) is tried again at the next interval, within the deadline.
        // The lease first: Redis lost the queue entry, and may have lost the lease with it.
        await this.#leases
          .hold(jobId)
          .then(() => request.start())
          .catch(() => undefined);
      }
      const woke = await next.signalled;
      hint = woke.hint;
      // A timer set for the deadline may fire a few milliseconds before `Date.now()` shows it
      // passed (timers count from the event loop's clock, read when its turn began): its firing
      // is the deadline, so the next read is the last, not one more wait of what is left.
      deadlineReached = woke.timedOut && waitMs === left;
    }
  }

  /** Stops listening; bounded, so a process whose Redis is gone still shuts down. */
  async close(): Promise<void> {
    this.#leases.stop();
    await withinMs(Promise.all(this.#events.map((events) => events.close())), 2_000);
    for (const connection of this.#connections) connection.disconnect();
  }

  #nextSignal(
    jobId: string,
    waitMs: number,
    signal: AbortSignal,
  ): { signalled: Promise<{ hint: CompletionHint; timedOut: boolean }>; cancel(): void } {
    let done: (hint?: CompletionHint, timedOut?: boolean) => void = () => undefined;
    const signalled = new Promise<{ hint: CompletionHint; timedOut: boolean }>((resolve) => {
      const wakers = this.#wakers.get(jobId) ?? new Set<Waker>();
      this.#wakers.set(jobId, wakers);
      const stop = () => done();
      let finished = false;
      done = (hint?: CompletionHint, timedOut = false) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
        wakers.delete(done);
        if (wakers.size === 0) this.#wakers.delete(jobId);
        resolve({ hint, timedOut });
      };
      const timer = setTimeout(() => done(undefined, true), waitMs);
      signal.addEventListener('abort', stop, { once: true });
      wakers.add(done);
    });
    return { signalled, cancel: () => done() };
  }

  #wake(jobId: string, hint: CompletionHint): void {
    for (const wake of [...(this.#wakers.get(jobId) ?? [])]) wake(hint);
  }
}

type Waker = (hint?: CompletionHint) => void;

function hintOf(returnvalue: unknown): CompletionHint {
  return typeof returnvalue === 'object' && returnvalue !== null
    ? (returnvalue as Readonly<Record<string, unknown>>)
    : undefined;
}
