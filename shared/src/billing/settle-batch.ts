import type { BillingDeps } from './billing-deps.ts';
import { assertSameCharge, chargeRecord, type SettleInput } from './settle-charge.ts';
import { holdIsOurs, publishSettlements } from './snapshots.ts';

/**
 * Group commit of charges (docs/money-core.md, "Group commit"): a batch of deferred charges is
 * recorded with one call of the money store (one transaction on SQLite), then every hold the batch
 * settled is dropped and the snapshots refreshed in one Redis pipeline.
 */

/** A deferred charge: its input, and when the request was served (its billing day and month). */
export interface DeferredSettlement {
  readonly input: SettleInput;
  readonly at: Date;
}

/**
 * Settles a batch; throws only when the store recorded nothing of it, leaving the batch to be
 * retried whole. Ids repeated within the batch are recorded once (the store answers `repeat`).
 */
export async function settleBatch(deps: BillingDeps, batch: readonly DeferredSettlement[]): Promise<void> {
  if (batch.length === 0) return;
  const now = deps.clock();
  const records = batch.map(({ input, at }) => chargeRecord(input, at, deps.settings.timeZone, now));
  const recorded = await deps.store.recordCharges(records);
  const ours = recorded.filter((charge, i) => {
    const { requestId } = (batch[i] as DeferredSettlement).input;
    try {
      assertSameCharge((batch[i] as DeferredSettlement).input, charge);
    } catch (err) {
      deps.logger.error({ err, entryId: charge.entry.id }, 'a deferred settlement names another entry');
      deps.leases.forget([requestId]);
      return false;
    }
    // A charge another writer still counts keeps its hold renewed until that writer drops it.
    if (!holdIsOurs(charge)) deps.leases.handOver(requestId);
    return holdIsOurs(charge);
  });
  const deferred = recorded.filter((charge) => charge.outcome === 'deferred').map(({ entry }) => entry.id);
  if (deferred.length > 0) deps.logger.error({ entryIds: deferred }, 'settlement: entries left for recovery');
  await publishSettlements(deps, ours);
}
