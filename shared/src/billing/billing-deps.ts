import type { Logger } from '../logging/logger.ts';
import type { BillingScripts } from './billing-scripts.ts';
import type { HoldLeases } from './hold-lease.ts';
import type { MoneyStore } from './money-store.ts';
import type { BillingKeys } from './redis-keys.ts';

/** The fixed parameters of billing, from the configuration. */
export interface BillingSettings {
  /** IANA zone of billing days and months. */
  readonly timeZone: string;
  /** A request's hold lives this long unless its process renews it (HOLD_LEASE_MS). */
  readonly holdLeaseMs: number;
  /** The spec's `min_required`, in µIRT. */
  readonly minRequiredMicros: bigint;
  /** Length of a rate window; the spec's is 60 000 ms. */
  readonly rateWindowMs: number;
  /** Life of a Redis snapshot: any drift after a crash heals within it, by reload from the store. */
  readonly snapshotTtlMs: number;
}

/** What every billing use case depends on, passed in explicitly. */
export interface BillingDeps {
  readonly store: MoneyStore;
  readonly scripts: BillingScripts;
  readonly keys: BillingKeys;
  readonly settings: BillingSettings;
  /** The holds this process renews (hold-lease.ts). */
  readonly leases: HoldLeases;
  readonly logger: Logger;
  readonly clock: () => Date;
}
