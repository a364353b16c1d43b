import type { Redis } from 'ioredis';
import { isCluster } from '../redis/redis.ts';

/**
 * A synchronous media job (image, speech, transcription) is worth running only while an api waits
 * to deliver it (docs/media.md, "Who waits for a job"). The waiting api holds a lease on the job in
 * Redis, taken before the job is queued, renewed while it waits (every third of its length, one
 * round trip for all the jobs a process waits for) and dropped when the wait ends. A worker about
 * to call the provider checks it: no lease, nobody will receive the answer (the api stopped, was
 * killed, or its client left), so the job is not run. Crash-safe: a lease nobody renews lapses.
 */

/** The worker's side: whether an api still waits for a job. */
export interface WaiterCheck {
  isAwaited(jobId: string): Promise<boolean>;
}

export interface WaiterLeaseOptions {
  /** `QUEUE_PREFIX`: the leases live beside the queues they speak of. */
  readonly prefix: string;
  /** `MEDIA_WAITER_LEASE_MS`: how long a lease lives without renewal. */
  readonly leaseMs: number;
}

export class WaiterLeases implements WaiterCheck {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #waiting = new Set<string>();
  #timer: NodeJS.Timeout | null = null;

  constructor(redis: Redis, options: WaiterLeaseOptions) {
    this.#redis = redis;
    this.#prefix = options.prefix;
    this.#leaseMs = options.leaseMs;
  }

  /** Takes the lease of `jobId` (before its job is queued); renewed until `release`. */
  async hold(jobId: string): Promise<void> {
    await this.#redis.set(this.#key(jobId), '1', 'PX', this.#leaseMs);
    this.#waiting.add(jobId);
    this.#startRenewing();
  }

  /** The wait ended: the lease goes (it lapses on its own should Redis not answer). */
  async release(jobId: string): Promise<void> {
    this.#waiting.delete(jobId);
    await this.#redis.del(this.#key(jobId)).catch(() => undefined);
  }

  /**
   * Whether an api waits for the job. A lease found missing is looked for once more two renewal
   * intervals later: Redis may have lost it (restarted empty) while its api lives on, and a live
   * api puts it back at its next renewal. Only a lease still missing then means nobody waits.
   */
  async isAwaited(jobId: string): Promise<boolean> {
    if (await this.#held(jobId)) return true;
    await new Promise((resolve) => setTimeout(resolve, 2 * this.#renewEveryMs));
    return this.#held(jobId);
  }

  /** Stops renewing: the leases still held lapse within a lease. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  get #renewEveryMs(): number {
    return Math.max(1, Math.floor(this.#leaseMs / 3));
  }

  async #held(jobId: string): Promise<boolean> {
    return (await this.#redis.exists(this.#key(jobId))) === 1;
  }

  #startRenewing(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.#renew(), this.#renewEveryMs);
    // The loop never keeps a process alive.
    this.#timer.unref();
  }

  async #renew(): Promise<void> {
    if (this.#waiting.size === 0) return;
    // A failed renewal is tried again at the next interval; a lease missed longer lapses.
    if (isCluster(this.#redis)) {
      // A pipeline on a Cluster must stay on one node; the jobs' leases are spread over the slots.
      const renewals = [...this.#waiting].map((jobId) =>
        this.#redis.set(this.#key(jobId), '1', 'PX', this.#leaseMs),
      );
      await Promise.allSettled(renewals);
      return;
    }
    const pipeline = this.#redis.pipeline();
    for (const jobId of this.#waiting) pipeline.set(this.#key(jobId), '1', 'PX', this.#leaseMs);
    await pipeline.exec().catch(() => undefined);
  }

  #key(jobId: string): string {
    return `${this.#prefix}:media-waiter:${jobId}`;
  }
}
