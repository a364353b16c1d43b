import type { KeySpendDoc, KeySpendRepository } from './key-spend.repository.ts';
import type { LedgerDoc, LedgerRepository } from './ledger.repository.ts';
import { markerOf } from './pending-marker.ts';
import type { UsageDailyRepository } from './usage-daily.repository.ts';
import type { WalletDoc, WalletsRepository } from './wallets.repository.ts';

/**
 * Exactly-once application of a ledger entry without multi-document transactions: a small
 * re-drivable two-phase commit keyed by the entry id (docs/money-core.md, "Settlement").
 *
 * 1. The entry is inserted `pending` with a lease (its `_id` is the idempotency key).
 * 2. Each target (wallet, key month spend, usage row) is incremented unless it carries the entry's
 *    marker, and gets the marker in the same update.
 * 3. The entry becomes `applied`; then the markers are cleared and the entry is closed.
 *
 * Only the holder of the lease (the inserter, or a recovery that claimed an expired lease) runs
 * step 2, and only while the entry is `pending`: once markers are cleared, a second driver would
 * count again, so "already recorded" never means "apply again" (see recover-pending-entries.ts).
 */

/** The collections money moves through. */
export interface BillingStore {
  readonly wallets: WalletsRepository;
  readonly ledger: LedgerRepository;
  readonly keySpend: KeySpendRepository;
  readonly usageDaily: UsageDailyRepository;
}

/** How long a driver may take to apply an entry before recovery may take it over. */
export const LEASE_MS = 60_000;

export type TargetKind = 'wallet' | 'key_spend' | 'usage_daily';

/** The targets of an entry, derived from the entry alone so that anyone can re-drive it. */
export function targetsOf(entry: LedgerDoc): TargetKind[] {
  if (entry.kind !== 'charge') return ['wallet'];
  return entry.key_id === null ? ['wallet', 'usage_daily'] : ['wallet', 'key_spend', 'usage_daily'];
}

/** The targets' state after the entry was applied (for the admission snapshots). */
export interface AppliedTargets {
  wallet: WalletDoc | null;
  keySpend: KeySpendDoc | null;
}

/** Step 2 for one target; returns the target after the guarded increment (or as found). */
export async function applyToTarget(
  store: BillingStore,
  entry: LedgerDoc,
  target: TargetKind,
): Promise<WalletDoc | KeySpendDoc | null> {
  const marker = markerOf(entry._id);
  switch (target) {
    case 'wallet':
      return (await store.wallets.applyEntry(entry.account_id, marker, entry.amount)).doc;
    case 'key_spend':
      return (await store.keySpend.applyEntry(entry.key_id ?? '', entry.month, marker, -entry.amount)).doc;
    case 'usage_daily': {
      const usage = entry.usage ?? { requests: 1, input_tokens: 0, output_tokens: 0 };
      const increment = {
        requests: usage.requests,
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cost: -entry.amount,
      };
      await store.usageDaily.applyEntry(entry.account_id, entry.day, entry.model ?? '', marker, increment);
      return null;
    }
  }
}

/** Steps 2 and 3: applies a pending entry the caller holds the lease of, then finishes it. */
export async function commitEntry(store: BillingStore, entry: LedgerDoc): Promise<AppliedTargets> {
  const targets = targetsOf(entry);
  // The targets are independent documents: their guarded increments may run side by side.
  const docs = await Promise.all(targets.map((target) => applyToTarget(store, entry, target)));
  await store.ledger.markApplied(entry._id);
  await finishEntry(store, entry);
  const docOf = (target: TargetKind) => docs[targets.indexOf(target)] ?? null;
  return { wallet: docOf('wallet') as WalletDoc | null, keySpend: docOf('key_spend') as KeySpendDoc | null };
}

/** Step 3 after `applied`: clears the entry's markers from its targets and closes it. Idempotent. */
export async function finishEntry(store: BillingStore, entry: LedgerDoc): Promise<void> {
  const marker = markerOf(entry._id);
  await Promise.all(targetsOf(entry).map((target) => clearTargetMarker(store, entry, target, marker)));
  await store.ledger.close(entry._id);
}

function clearTargetMarker(
  store: BillingStore,
  entry: LedgerDoc,
  target: TargetKind,
  marker: string,
): Promise<void> {
  switch (target) {
    case 'wallet':
      return store.wallets.clearMarker(entry.account_id, marker);
    case 'key_spend':
      return store.keySpend.clearMarker(entry.key_id ?? '', entry.month, marker);
    case 'usage_daily':
      return store.usageDaily.clearMarker(entry.account_id, entry.day, entry.model ?? '', marker);
  }
}
