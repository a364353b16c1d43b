import { randomBytes } from 'node:crypto';
import type { BillingDeps } from './billing-deps.ts';
import {
  type AppliedTargets,
  applyToTarget,
  applyToTargetsOnce,
  clearTargetsMarkers,
  type TargetKind,
  targetDocId,
  targetsOf,
} from './guarded-apply.ts';
import type { KeySpendDoc } from './key-spend.repository.ts';
import type { LedgerDoc } from './ledger.repository.ts';
import { chargeDoc, type SettleInput } from './settle-charge.ts';
import { publishSettlements } from './snapshots.ts';
import type { WalletDoc } from './wallets.repository.ts';

/**
 * Group commit of charges (docs/money-core.md, "Group commit"): the steps of guarded-apply.ts for
 * a batch, with a few MongoDB commands per step and per target collection instead of per entry.
 *
 * (a) one unordered insert of every entry as pending, with its lease;
 * (b) per target document (wallet per account, key spend per account × month, usage row per account ×
 *     day × model), one guarded update adding the group's sum unless any of its markers is present,
 *     sent as one unordered bulk per collection, then one read of the documents (which also tells
 *     which groups counted); a group that met a marker falls back to entry-by-entry guarded updates
 *     (the markers decide);
 * (c) one update marking the entries applied; (d) one marker-clearing bulk per collection, then one
 *     update closing the entries; (e) one Redis pipeline dropping the holds and publishing the
 *     snapshots. (e) runs beside (c)–(d): admission reads the targets only, which count the charges
 *     from (b) on, so a hold dropped then is never missed.
 *
 * An entry whose step (b) failed for any of its targets stays pending with its markers: recovery
 * claims it when its lease runs out and completes it exactly once (recover-pending-entries.ts).
 */

/** A deferred charge: its input, and when the request was served (its billing day and month). */
export interface DeferredSettlement {
  readonly input: SettleInput;
  readonly at: Date;
}

/** The entries of a batch counting in one target document, and what step (b) did to it. */
interface TargetGroup {
  readonly target: TargetKind;
  readonly entries: [LedgerDoc, ...LedgerDoc[]];
  doc: WalletDoc | KeySpendDoc | null;
  failed: boolean;
}

/**
 * Settles a batch; throws only when step (a) fails, leaving the batch to be retried (an entry it
 * recorded all the same is found by the retry and takes the single path). Returns the inputs whose
 * id was recorded already (before, or earlier in this batch): the caller settles those one by one,
 * which drops the hold of an applied entry and leaves one being applied to its driver.
 */
export async function settleBatch(
  deps: BillingDeps,
  batch: readonly DeferredSettlement[],
): Promise<DeferredSettlement[]> {
  const now = deps.clock();
  // Tags this attempt's entries: the ledger documents carrying it are exactly those it inserted.
  const batchId = `batch_${randomBytes(12).toString('base64url')}`;
  const firsts = new Map<string, { item: DeferredSettlement; doc: LedgerDoc }>();
  const repeats: DeferredSettlement[] = [];
  for (const item of batch) {
    const { input, at } = item;
    if (firsts.has(input.requestId)) repeats.push(item);
    else {
      const doc: LedgerDoc = { ...chargeDoc(input, at, now, deps.settings.timeZone), batch: batchId };
      firsts.set(input.requestId, { item, doc });
    }
  }
  const existing = await insertBatch(
    deps,
    [...firsts.values()].map(({ doc }) => doc),
  );
  const inserted: LedgerDoc[] = [];
  for (const { item, doc } of firsts.values()) {
    if (existing.has(doc._id)) repeats.push(item);
    else inserted.push(doc);
  }
  await commitBatch(deps, inserted);
  return repeats;
}

/** Step (a): the ids that existed already; every other entry is now pending under its lease. */
export function insertBatch(deps: BillingDeps, entries: readonly LedgerDoc[]): Promise<Set<string>> {
  if (entries.length === 0) return Promise.resolve(new Set());
  return deps.store.ledger.insertManyPending(entries);
}

/** Steps (b)–(e) for pending entries whose lease the caller holds. Never throws: see the top. */
export async function commitBatch(deps: BillingDeps, entries: readonly LedgerDoc[]): Promise<void> {
  if (entries.length === 0) return;
  const groups = groupByTarget(entries);
  await Promise.all(TARGET_KINDS.map((target) => applyGroups(deps, groupsOfKind(groups, target), target)));
  const groupsOf = (entry: LedgerDoc) =>
    targetsOf(entry).map((target) => groups.get(groupKey(entry, target)) as TargetGroup);
  const settled = entries.filter((entry) => groupsOf(entry).every((group) => !group.failed));
  if (settled.length < entries.length) {
    const done = new Set(settled);
    const entryIds = entries.filter((entry) => !done.has(entry)).map((entry) => entry._id);
    deps.logger.error({ entryIds }, 'settlement batch: entries left pending for recovery');
  }
  const settlements = settled.map((entry) => ({ entry, applied: appliedTargets(groupsOf(entry)) }));
  await Promise.all([publishSettlements(deps, settlements), finishBatch(deps, entries, settled, groups)]);
}

const TARGET_KINDS: readonly TargetKind[] = ['wallet', 'key_spend', 'usage_daily'];

function groupsOfKind(groups: Map<string, TargetGroup>, target: TargetKind): TargetGroup[] {
  return [...groups.values()].filter((group) => group.target === target);
}

/** Step (b) for the target documents of one kind: one bulk for all of them. */
async function applyGroups(deps: BillingDeps, groups: readonly TargetGroup[], target: TargetKind) {
  if (groups.length === 0) return;
  let results: Awaited<ReturnType<typeof applyToTargetsOnce>>;
  try {
    results = await applyToTargetsOnce(
      deps.store,
      groups.map((group) => group.entries),
      target,
    );
  } catch (err) {
    for (const group of groups) group.failed = true;
    deps.logger.error({ err, target, groups: groups.length }, 'settlement batch: a target update failed');
    return;
  }
  await Promise.all(
    groups.map(async (group, i) => {
      const result = results[i];
      group.doc = result?.doc ?? null;
      if (result?.applied === true) return;
      // Some marker is present (a recovery took an entry over): each entry counts unless its own is.
      try {
        for (const entry of group.entries)
          group.doc = newer(group.doc, await applyToTarget(deps.store, entry, group.target));
      } catch (err) {
        group.failed = true;
        deps.logger.error(
          { err, target, entries: group.entries.length },
          'settlement batch: a target update failed',
        );
      }
    }),
  );
}

/**
 * Steps (c) and (d) for the entries counted in every target. When that is every entry the batch
 * inserted, they are selected by their batch id rather than by a list of ids: on jongodb an `$in`
 * list is matched id by id against every document, which made large batches cost quadratically.
 */
async function finishBatch(
  deps: BillingDeps,
  entries: readonly LedgerDoc[],
  settled: readonly LedgerDoc[],
  groups: Map<string, TargetGroup>,
): Promise<void> {
  if (settled.length === 0) return;
  const ids = new Set(settled.map((entry) => entry._id));
  const batch = wholeBatch(entries, settled.length);
  try {
    if (batch === null) await deps.store.ledger.markManyApplied([...ids]);
    else await deps.store.ledger.markBatchApplied(batch);
  } catch (err) {
    // Their markers stay: recovery finds them pending, counts nothing twice and finishes them.
    deps.logger.error({ err, entryIds: [...ids] }, 'settlement batch: entries left pending for recovery');
    return;
  }
  const uncleared = await clearMarkers(deps, groups, ids);
  const closable = [...ids].filter((id) => !uncleared.has(id));
  const closeBatch = wholeBatch(entries, closable.length);
  const closing =
    closeBatch === null ? deps.store.ledger.closeMany(closable) : deps.store.ledger.closeBatch(closeBatch);
  await closing.catch((err: unknown) => {
    deps.logger.warn({ err }, 'settlement batch: entries left open for recovery');
  });
}

/** The batch id of `entries` when a step covers all of them (`count` of them) and they share one. */
function wholeBatch(entries: readonly LedgerDoc[], count: number): string | null {
  const batch = entries[0]?.batch;
  if (batch === undefined || count !== entries.length) return null;
  return entries.every((entry) => entry.batch === batch) ? batch : null;
}

/** Step (d): each target loses the markers of the batch's applied entries; returns those it kept. */
async function clearMarkers(
  deps: BillingDeps,
  groups: Map<string, TargetGroup>,
  applied: ReadonlySet<string>,
): Promise<Set<string>> {
  const uncleared = new Set<string>();
  await Promise.all(
    TARGET_KINDS.map(async (target) => {
      const done = groupsOfKind(groups, target)
        .map((group) => group.entries.filter((entry) => applied.has(entry._id)))
        .filter((entries): entries is [LedgerDoc, ...LedgerDoc[]] => entries.length > 0);
      if (done.length === 0) return;
      try {
        await clearTargetsMarkers(deps.store, done, target);
      } catch (err) {
        for (const entry of done.flat()) uncleared.add(entry._id);
        deps.logger.warn({ err, target }, 'settlement batch: markers left for recovery');
      }
    }),
  );
  return uncleared;
}

function groupByTarget(entries: readonly LedgerDoc[]): Map<string, TargetGroup> {
  const groups = new Map<string, TargetGroup>();
  for (const entry of entries) {
    for (const target of targetsOf(entry)) {
      const key = groupKey(entry, target);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { target, entries: [entry], doc: null, failed: false });
      else group.entries.push(entry);
    }
  }
  return groups;
}

/** Names the target document an entry counts in: entries of one account (and month, day) share it. */
function groupKey(entry: LedgerDoc, target: TargetKind): string {
  return `${target} ${targetDocId(entry, target)}`;
}

function appliedTargets(groups: readonly TargetGroup[]): AppliedTargets {
  const docOf = (target: TargetKind) => groups.find((group) => group.target === target)?.doc ?? null;
  return { wallet: docOf('wallet') as WalletDoc | null, keySpend: docOf('key_spend') as KeySpendDoc | null };
}

function newer<T extends { version: bigint }>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  return b !== null && b.version > a.version ? b : a;
}
