import type { Document } from 'mongodb';
import {
  type KeySpendDoc,
  type KeySpendRepository,
  keySpendId,
  keySpendIncrement,
} from './key-spend.mongo.ts';
import type { LedgerDoc, LedgerRepository } from './ledger.mongo.ts';
import { type GuardedIncrement, type GuardedResult, markerOf } from './pending-marker.ts';
import { type UsageDailyRepository, usageDailyId, usageIncrement } from './usage-daily.mongo.ts';
import { type WalletDoc, type WalletsRepository, walletIncrement } from './wallets.mongo.ts';

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
export interface MoneyCollections {
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

/** The id of the target document of `target` an entry counts in (entries sharing it form a group). */
export function targetDocId(entry: LedgerDoc, target: TargetKind): string {
  if (target === 'wallet') return entry.account_id;
  if (target === 'key_spend') return keySpendId(entry.account_id, entry.month);
  return usageDailyId(entry.account_id, entry.day, entry.model ?? '');
}

/** The targets' state after the entry was applied (for the admission snapshots). */
export interface AppliedTargets {
  wallet: WalletDoc | null;
  keySpend: KeySpendDoc | null;
}

/** Step 2 for one target; returns the target after the guarded increment (or as found). */
export async function applyToTarget(
  store: MoneyCollections,
  entry: LedgerDoc,
  target: TargetKind,
): Promise<WalletDoc | KeySpendDoc | null> {
  return (await applyToTargetOnce(store, [entry], target)).doc;
}

/** Entries that all count in one target document (one entry, or a settlement batch's group). */
export type TargetEntries = readonly [LedgerDoc, ...LedgerDoc[]];

/**
 * Step 2 for entries that all count in one target document (one entry, or a settlement batch's
 * entries of one wallet, account's key spend month or usage row): one guarded update adds their sum
 * unless the document carries any of their markers. Returns the wallet or key spend after it (null
 * for a usage row), and whether this call applied the sum (false: some marker was present, none
 * applied).
 */
export async function applyToTargetOnce(
  store: MoneyCollections,
  entries: TargetEntries,
  target: TargetKind,
): Promise<GuardedResult<WalletDoc | KeySpendDoc | null>> {
  const [result] = await applyToTargetsOnce(store, [entries], target);
  return result as GuardedResult<WalletDoc | KeySpendDoc | null>;
}

/**
 * `applyToTargetOnce` for several documents of one kind (the groups of a settlement batch): one
 * command for a single group, two (a bulk and a read) for more. A group reported applied counts in
 * its document (by this call or by its entries' own drivers); one not applied counted nothing here.
 */
export async function applyToTargetsOnce(
  store: MoneyCollections,
  groups: readonly TargetEntries[],
  target: TargetKind,
): Promise<GuardedResult<WalletDoc | KeySpendDoc | null>[]> {
  const markersOf = (entries: TargetEntries) => entries.map((entry) => markerOf(entry._id));
  // Charges are negative amounts: the wallet takes the sum, spend and usage count the cost.
  const sumOf = (entries: TargetEntries) => entries.reduce((sum, entry) => sum + entry.amount, 0n);
  switch (target) {
    case 'wallet':
      return applyWith(
        store.wallets,
        groups.map((entries) => walletIncrement(entries[0].account_id, markersOf(entries), sumOf(entries))),
      );
    case 'key_spend':
      return applyWith(
        store.keySpend,
        groups.map((entries) => {
          const costByKey = new Map<string, bigint>();
          for (const entry of entries) {
            const keyId = entry.key_id ?? '';
            costByKey.set(keyId, (costByKey.get(keyId) ?? 0n) - entry.amount);
          }
          return keySpendIncrement(entries[0].account_id, entries[0].month, markersOf(entries), costByKey);
        }),
      );
    case 'usage_daily': {
      const increments = groups.map((entries) => {
        const usage = entries.map(
          (entry) => entry.usage ?? { requests: 1, input_tokens: 0, output_tokens: 0 },
        );
        const [first] = entries;
        return usageIncrement(first.account_id, first.day, first.model ?? '', markersOf(entries), {
          requests: usage.reduce((sum, u) => sum + u.requests, 0),
          inputTokens: usage.reduce((sum, u) => sum + u.input_tokens, 0),
          outputTokens: usage.reduce((sum, u) => sum + u.output_tokens, 0),
          cost: -sumOf(entries),
        });
      });
      const results = await applyWith(store.usageDaily, increments);
      return results.map((result) => ({ doc: null, applied: result.applied }));
    }
  }
}

async function applyWith<T extends Document & { _id: string }>(
  repository: {
    applyOne(change: GuardedIncrement<T>): Promise<GuardedResult<T>>;
    applyMany(changes: readonly GuardedIncrement<T>[]): Promise<GuardedResult<T>[]>;
  },
  increments: readonly GuardedIncrement<T>[],
): Promise<GuardedResult<T>[]> {
  const [only] = increments;
  if (increments.length === 1 && only !== undefined) return [await repository.applyOne(only)];
  return repository.applyMany(increments);
}

/** Steps 2 and 3: applies a pending entry the caller holds the lease of, then finishes it. */
export async function commitEntry(store: MoneyCollections, entry: LedgerDoc): Promise<AppliedTargets> {
  const applied = await applyEntry(store, entry);
  await finishEntry(store, entry);
  return applied;
}

/**
 * Step 2 and the start of step 3: the entry counts in every target and is recorded `applied`; its
 * markers are still to be cleared (`finishEntry`, which recovery also runs for an open applied one).
 */
export async function applyEntry(store: MoneyCollections, entry: LedgerDoc): Promise<AppliedTargets> {
  const targets = targetsOf(entry);
  // The targets are independent documents: their guarded increments may run side by side.
  const docs = await Promise.all(targets.map((target) => applyToTarget(store, entry, target)));
  await store.ledger.markApplied(entry._id);
  const docOf = (target: TargetKind) => docs[targets.indexOf(target)] ?? null;
  return { wallet: docOf('wallet') as WalletDoc | null, keySpend: docOf('key_spend') as KeySpendDoc | null };
}

/** Step 3 after `applied`: clears the entry's markers from its targets and closes it. Idempotent. */
export async function finishEntry(store: MoneyCollections, entry: LedgerDoc): Promise<void> {
  await Promise.all(targetsOf(entry).map((target) => clearTargetMarkers(store, [entry], target)));
  await store.ledger.close(entry._id);
}

/** Clears the markers of applied entries that all count in one target document. Idempotent. */
export function clearTargetMarkers(
  store: MoneyCollections,
  entries: TargetEntries,
  target: TargetKind,
): Promise<void> {
  return clearTargetsMarkers(store, [entries], target);
}

/** `clearTargetMarkers` for several documents of one kind, in one command. Idempotent. */
export function clearTargetsMarkers(
  store: MoneyCollections,
  groups: readonly TargetEntries[],
  target: TargetKind,
): Promise<void> {
  const clearings = groups.map((entries) => ({
    id: targetDocId(entries[0], target),
    markers: entries.map((entry) => markerOf(entry._id)),
  }));
  if (target === 'wallet') return store.wallets.clearMarkers(clearings);
  if (target === 'key_spend') return store.keySpend.clearMarkers(clearings);
  return store.usageDaily.clearMarkers(clearings);
}
