import type { Logger } from '../logging/logger.ts';
import type { BillingScripts } from './billing-scripts.ts';
import { type HoldKeys, holdSetsOf } from './redis-keys.ts';

/**
 * Holds are leases (docs/money-core.md, "Holds are leases"): a request's hold expires one lease
 * after it was taken or last renewed, and the process serving the request renews it while the
 * request lives. One loop per process renews every hold the process still owns, every third of
 * a lease, in one Redis round trip (a pipeline of renewal scripts), never one timer per request.
 * When a process dies its holds stop being renewed and are gone within one lease.
 *
 * A process owns a hold from its admission until it settles or releases it; a charge queued for a
 * settlement batch keeps its hold owned (and renewed) until the batch's publish drops it. A hold
 * the renewal finds gone (settled, released, expired, or lost by Redis) is forgotten.
 */

/** A hold this process renews. */
export interface OwnedHold {
  readonly id: string;
  readonly walletHolds: HoldKeys;
  readonly keyHolds: HoldKeys;
}

export interface HoldLeaseOptions {
  readonly leaseMs: number;
  readonly logger: Logger;
  /**
   * The longest a hold is renewed however long its request lives (a safety net against a request
   * path that never settles nor releases); default MAX_RENEWAL_MS.
   */
  readonly maxRenewalMs?: number;
}

/** A request served longer than this (one hour) loses its hold; it is still charged. */
export const MAX_RENEWAL_MS = 60 * 60 * 1000;
/**
 * How long a hold whose charge another writer is counting (a MongoDB entry `in_progress` or left
 * for recovery) stays renewed: until that writer drops it, at most this long.
 */
export const HANDED_OVER_RENEWAL_MS = 10 * 60 * 1000;
/** Renewal failures are logged at most this often. */
const WARN_EVERY_MS = 10_000;

interface Lease {
  readonly hold: OwnedHold;
  /** `Date.now()` after which it is no longer renewed. */
  until: number;
}

export class HoldLeases {
  readonly #scripts: Pick<BillingScripts, 'renewHolds'>;
  readonly #leaseMs: number;
  readonly #maxRenewalMs: number;
  readonly #logger: Logger;
  readonly #leases = new Map<string, Lease>();
  #timer: NodeJS.Timeout | null = null;
  #renewing: Promise<void> | null = null;
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(scripts: Pick<BillingScripts, 'renewHolds'>, options: HoldLeaseOptions) {
    if (!Number.isInteger(options.leaseMs) || options.leaseMs < 3)
      throw new RangeError(`leaseMs must be an integer ≥ 3, not ${options.leaseMs}`);
    this.#scripts = scripts;
    this.#leaseMs = options.leaseMs;
    this.#maxRenewalMs = options.maxRenewalMs ?? MAX_RENEWAL_MS;
    this.#logger = options.logger;
  }

  /** How long a hold lives without renewal. */
  get leaseMs(): number {
    return this.#leaseMs;
  }

  /** Holds this process renews now. */
  get size(): number {
    return this.#leases.size;
  }

  /** Whether this process renews the hold `id`. */
  owns(id: string): boolean {
    return this.#leases.has(id);
  }

  /** Starts renewing a hold this process took (again: a second admission of one id keeps one lease). */
  own(hold: OwnedHold): void {
    const current = this.#leases.get(hold.id);
    if (current !== undefined) return;
    this.#leases.set(hold.id, { hold, until: Date.now() + this.#maxRenewalMs });
  }

  /** Stops renewing holds (settled or released: their lease ends, or their script dropped them). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.#leases.delete(id);
  }

  /**
   * Another writer now counts this hold's charge and will drop the hold: keep renewing it until
   * the renewal finds it gone, at most HANDED_OVER_RENEWAL_MS more. No effect on holds not owned.
   */
  handOver(id: string): void {
    const lease = this.#leases.get(id);
    if (lease !== undefined) lease.until = Math.min(lease.until, Date.now() + HANDED_OVER_RENEWAL_MS);
  }

  /** Starts the renewal loop (every third of a lease); idempotent. The loop never keeps a process alive. */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
  }

  /** Stops the loop; holds still owned expire within a lease. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#renewing;
  }

  /**
   * One renewal of every hold owned, in one round trip; a renewal still running is awaited instead
   * of overlapped. Never rejects: a failure is logged and the next tick tries again (a hold whose
   * lease ran out meanwhile is gone, and forgotten then).
   */
  renew(): Promise<void> {
    if (this.#renewing !== null) return this.#renewing;
    if (this.#leases.size === 0) return Promise.resolve();
    this.#renewing = this.#renewOnce().finally(() => {
      this.#renewing = null;
    });
    return this.#renewing;
  }

  async #renewOnce(): Promise<void> {
    const now = Date.now();
    const held: (readonly [HoldKeys, string])[] = [];
    for (const [id, lease] of this.#leases) {
      if (lease.until < now) this.#leases.delete(id);
      else held.push([lease.hold.walletHolds, id], [lease.hold.keyHolds, id]);
    }
    const sets = holdSetsOf(held);
    if (sets.length === 0) return;
    try {
      const gone = await this.#scripts.renewHolds(sets, this.#leaseMs);
      this.forget(gone);
    } catch (err) {
      if (Date.now() - this.#warnedAt < WARN_EVERY_MS) return;
      this.#warnedAt = Date.now();
      this.#logger.warn({ err, holds: this.#leases.size }, 'renewing hold leases failed; retrying next tick');
    }
  }
}
