import type { Logger } from '../logging/logger.ts';
import type { BackgroundWork } from './background-work.ts';
import type { BillingScripts } from './billing-scripts.ts';
import type { BillingStore } from './guarded-apply.ts';
import type { BillingKeys } from './redis-keys.ts';

/** The fixed parameters of billing, from the configuration. */
export interface BillingSettings {
  /** IANA zone of billing days and months. */
  readonly timeZone: string;
  readonly holdTtlMs: number;
  /** The spec's `min_required`, in µIRT. */
  readonly minRequiredMicros: bigint;
  /** Length of a rate window; the spec's is 60 000 ms. */
  readonly rateWindowMs: number;
  /** Life of a Redis snapshot: any drift after a crash heals within it, by reload from MongoDB. */
  readonly snapshotTtlMs: number;
}

/** What every billing use case depends on, passed in explicitly. */
export interface BillingDeps {
  readonly store: BillingStore;
  readonly scripts: BillingScripts;
  readonly keys: BillingKeys;
  readonly settings: BillingSettings;
  readonly logger: Logger;
  readonly clock: () => Date;
  /** Settlement steps left to finish after the caller got its answer. */
  readonly background: BackgroundWork;
}
