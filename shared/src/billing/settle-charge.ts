import type { BillingDeps } from './billing-deps.ts';
import { dayOf, monthOf } from './billing-time.ts';
import type { HoldBasis } from './hold-calibration.ts';
import type { ChargeRecord, RecordedCharge } from './money-store.ts';
import { holdIsOurs, publishSettlements } from './snapshots.ts';

/** The actual cost of an admitted request, replacing its hold. */
export interface SettleInput {
  /** The ledger entry id, also the hold's id: settling twice with one id charges once. */
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string | null;
  readonly model: string;
  readonly costMicros: bigint;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly requests?: number;
    /** Input tokens read from the provider's cache (not stored: refines later holds only). */
    readonly cachedInputTokens?: number;
  };
  /** When the request was served; decides its billing day and month. Default: now. */
  readonly at?: Date;
  /**
   * What the request's token hold was computed from: its usage then refines the estimates of later
   * requests of the model (hold-calibration.ts). Not stored.
   */
  readonly basis?: HoldBasis | undefined;
}

export interface SettleResult {
  readonly entryId: string;
  /** The cost recorded under this id (the first settlement's, on a repeat). */
  readonly costMicros: bigint;
  /** False when an entry with this id was counted before (a repeat) or is being counted by another writer. */
  readonly created: boolean;
}

/**
 * Charges a request exactly once: one ledger entry keyed by the request id, counted in the wallet,
 * the key's month spend and the day's usage row; then the hold is dropped and the snapshots
 * refreshed. A repeat finds the entry and charges nothing more.
 */
export async function settleCharge(deps: BillingDeps, input: SettleInput): Promise<SettleResult> {
  validateSettleInput(input);
  const now = deps.clock();
  const [charge] = await deps.store.recordCharges([
    chargeRecord(input, input.at ?? now, deps.settings.timeZone, now),
  ]);
  if (charge === undefined) throw new Error('the money store answered no result for one charge');
  assertSameCharge(input, charge);
  // A writer still counting the entry drops the hold itself once the charge counts; dropping it
  // here first would let admission see neither the hold nor the charge for a moment.
  if (holdIsOurs(charge)) await publishSettlements(deps, [charge]);
  return {
    entryId: charge.entry.id,
    costMicros: -charge.entry.amountMicros,
    created: charge.outcome === 'recorded' || charge.outcome === 'deferred',
  };
}

/** The charge to record for a request served at `at` (its billing day and month), recorded at `now`. */
export function chargeRecord(input: SettleInput, at: Date, timeZone: string, now: Date): ChargeRecord {
  return {
    id: input.requestId,
    accountId: input.accountId,
    keyId: input.keyId,
    model: input.model,
    costMicros: input.costMicros,
    usage: {
      requests: input.usage.requests ?? 1,
      inputTokens: input.usage.inputTokens,
      outputTokens: input.usage.outputTokens,
    },
    day: dayOf(at, timeZone),
    month: monthOf(at, timeZone),
    createdAt: now,
  };
}

/** A repeated id must name the same account's charge: anything else is a bug upstream. */
export function assertSameCharge(input: SettleInput, charge: RecordedCharge): void {
  if (charge.entry.kind !== 'charge' || charge.entry.accountId !== input.accountId) {
    throw new Error(`ledger entry ${charge.entry.id} exists for another account or kind`);
  }
}

/** Throws a RangeError for an input no settlement accepts. */
export function validateSettleInput(input: SettleInput): void {
  if (input.requestId === '') throw new RangeError('requestId must not be empty');
  if (input.costMicros < 0n) throw new RangeError('costMicros must be ≥ 0');
  const counts = [input.usage.inputTokens, input.usage.outputTokens, input.usage.requests ?? 1];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new RangeError('usage counts must be non-negative integers');
  }
}
