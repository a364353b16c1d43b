import type { BillingDeps } from './billing-deps.ts';
import { type AppliedTargets, commitEntry, finishEntry, LEASE_MS } from './guarded-apply.ts';
import type { LedgerDoc } from './ledger.repository.ts';
import { publishSettlement } from './snapshots.ts';

/**
 * Completes ledger entries left open by a crash: pending ones are claimed (their driver's lease ran
 * out) and applied where not yet applied; applied ones get their markers cleared. Returns how many
 * entries it completed. Safe to run on every replica at once: a claim is a conditional update.
 */
export async function recoverPendingEntries(deps: BillingDeps, olderThanMs: number): Promise<number> {
  const cutoff = new Date(deps.clock().getTime() - olderThanMs);
  let completed = 0;
  for await (const entry of deps.store.ledger.findOpen(cutoff)) {
    try {
      if (await recoverEntry(deps, entry)) completed += 1;
    } catch (err) {
      // One entry's failure must not block the others; it stays open for the next run.
      deps.logger.error({ err, entryId: entry._id }, 'could not recover a ledger entry');
    }
  }
  return completed;
}

async function recoverEntry(deps: BillingDeps, entry: LedgerDoc): Promise<boolean> {
  if (entry.state === 'applied') {
    await finishEntry(deps.store, entry);
    return true;
  }
  const applied = await resumeIfAbandoned(deps, entry);
  if (applied === null) return false;
  await publishSettlement(deps, entry, applied);
  return true;
}

/**
 * Finishes a pending entry whose driver's lease ran out (it crashed); leaves alone an entry that is
 * applied, or that its driver is still applying (applying it here as well could count it twice).
 */
export async function resumeIfAbandoned(deps: BillingDeps, entry: LedgerDoc): Promise<AppliedTargets | null> {
  if (entry.state !== 'pending') return null;
  const now = deps.clock();
  const claimed = await deps.store.ledger.claim(entry._id, now, new Date(now.getTime() + LEASE_MS));
  if (claimed === null) return null;
  deps.logger.warn({ entryId: entry._id, kind: entry.kind }, 'completing an abandoned ledger entry');
  return commitEntry(deps.store, claimed);
}
