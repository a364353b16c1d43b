import type { BillingDeps } from './billing-deps.ts';
import { dayOf, monthOf } from './billing-time.ts';
import { applyEntry, finishEntry, LEASE_MS } from './guarded-apply.ts';
import type { LedgerDoc } from './ledger.repository.ts';
import { resumeIfAbandoned } from './recover-pending-entries.ts';
import { publishSettlement } from './snapshots.ts';

/** The actual cost of an admitted request, replacing its hold. */
export interface SettleInput {
  /** The ledger entry id, also the hold's id: settling twice with one id charges once. */
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string | null;
  readonly model: string;
  readonly costMicros: bigint;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly requests?: number };
  /** When the request was served; decides its billing day and month. Default: now. */
  readonly at?: Date;
}

export interface SettleResult {
  readonly entryId: string;
  /** The cost recorded under this id (the first settlement's, on a repeat). */
  readonly costMicros: bigint;
  /** False when an entry with this id existed already. */
  readonly created: boolean;
}

/**
 * Charges a request exactly once: one ledger entry keyed by the request id, applied to the wallet,
 * the key's month spend and the day's usage row; then the hold is dropped and the snapshots
 * refreshed. A repeat finds the entry and charges nothing more.
 */
export async function settleCharge(deps: BillingDeps, input: SettleInput): Promise<SettleResult> {
  validateSettleInput(input);
  const now = deps.clock();
  const doc = chargeDoc(input, input.at ?? now, now, deps.settings.timeZone);
  if (await deps.store.ledger.insertPending(doc)) {
    const applied = await applyEntry(deps.store, doc);
    // The charge counts from here on: clearing its markers and closing it need not hold the caller.
    deps.background.track(finishEntry(deps.store, doc), (err) =>
      deps.logger.warn({ err, entryId: doc._id }, 'settled entry left open for recovery to finish'),
    );
    await publishSettlement(deps, doc, applied);
    return { entryId: doc._id, costMicros: input.costMicros, created: true };
  }
  const existing = await deps.store.ledger.findById(doc._id);
  if (existing === null) throw new Error(`ledger entry ${doc._id} vanished`);
  if (existing.kind !== 'charge' || existing.account_id !== input.accountId) {
    throw new Error(`ledger entry ${doc._id} exists for another account or kind`);
  }
  const resumed = await resumeIfAbandoned(deps, existing);
  // A driver still applying the entry drops the hold itself once the charge counts; dropping it
  // here first would let admission see neither the hold nor the charge for a moment.
  if (resumed !== null || existing.state === 'applied') await publishSettlement(deps, existing, resumed);
  return { entryId: existing._id, costMicros: -existing.amount, created: false };
}

/** The pending ledger entry of a charge served at `at`, inserted at `now` (its lease starts then). */
export function chargeDoc(input: SettleInput, at: Date, now: Date, timeZone: string): LedgerDoc {
  return {
    _id: input.requestId,
    account_id: input.accountId,
    key_id: input.keyId,
    kind: 'charge',
    amount: -input.costMicros,
    model: input.model,
    usage: {
      requests: input.usage.requests ?? 1,
      input_tokens: input.usage.inputTokens,
      output_tokens: input.usage.outputTokens,
    },
    day: dayOf(at, timeZone),
    month: monthOf(at, timeZone),
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + LEASE_MS),
    created_at: now,
    reference: null,
  };
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
