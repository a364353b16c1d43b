import { QueueEvents } from 'bullmq';
import type { QueueName } from '../../../shared/src/jobs/queue-names.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';
import { withinMs } from '../../../shared/src/runtime/within.ts';

/** How often a waiting request re-reads its job even without an event (a missed event costs this). */
const FALLBACK_POLL_MS = 1_000;

export type WaitOutcome =
  | { readonly ended: MediaJob }
  | { readonly ended: null; readonly reason: 'timeout' | 'aborted' };

/**
 * Lets an api request wait for its media job: one BullMQ QueueEvents listener per queue (shared by
 * all requests of the process) wakes the waiter of a job when the job completes or fails; the job
 * document, re-read then, is the source of truth.
 */
export class JobWaiter {
  readonly #connections: Redis[] = [];
  readonly #events: QueueEvents[] = [];
  readonly #wakers = new Map<string, Set<() => void>>();

  constructor(redisUrl: string, prefix: string, queues: readonly QueueName[]) {
    for (const queue of queues) {
      const connection = createRedis(redisUrl, { forBullmq: true, connectionName: `api-events-${queue}` });
      const events = new QueueEvents(queue, { connection, prefix });
      events.on('completed', ({ jobId }) => this.#wake(jobId));
      events.on('failed', ({ jobId }) => this.#wake(jobId));
      events.on('error', () => undefined);
      this.#connections.push(connection);
      this.#events.push(events);
    }
  }

  async start(): Promise<void> {
    await Promise.all(this.#events.map((events) => events.waitUntilReady()));
  }

  /** Resolves once `read()` shows the job left `queued`/`running`, or on timeout or abort. */
  async waitForEnd(
    jobId: string,
    read: () => Promise<MediaJob | null>,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<WaitOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal.aborted) return { ended: null, reason: 'aborted' };
      const left = deadline - Date.now();
      // Listen before reading, so an event between the read and the wait is not missed.
      const next = this.#nextSignal(jobId, Math.max(0, Math.min(left, FALLBACK_POLL_MS)), signal);
      const job = await read();
      if (job !== null && job.status !== 'queued' && job.status !== 'running') {
        next.cancel();
        return { ended: job };
      }
      if (left <= 0) {
        next.cancel();
        return { ended: null, reason: 'timeout' };
      }
      await next.signalled;
    }
  }

  /** Stops listening; bounded, so a process whose Redis is gone still shuts down. */
  async close(): Promise<void> {
    await withinMs(Promise.all(this.#events.map((events) => events.close())), 2_000);
    for (const connection of this.#connections) connection.disconnect();
  }

  #nextSignal(
    jobId: string,
    waitMs: number,
    signal: AbortSignal,
  ): { signalled: Promise<void>; cancel(): void } {
    let done: () => void = () => undefined;
    const signalled = new Promise<void>((resolve) => {
      const wakers = this.#wakers.get(jobId) ?? new Set<() => void>();
      this.#wakers.set(jobId, wakers);
      done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        wakers.delete(done);
        if (wakers.size === 0) this.#wakers.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      signal.addEventListener('abort', done, { once: true });
      wakers.add(done);
    });
    return { signalled, cancel: () => done() };
  }

  #wake(jobId: string): void {
    for (const wake of [...(this.#wakers.get(jobId) ?? [])]) wake();
  }
}
