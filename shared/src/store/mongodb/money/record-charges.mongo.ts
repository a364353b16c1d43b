import type { ChargeRecord, RecordedCharge } from '../../../billing/money-store.ts';
import type { Logger } from '../../../logging/logger.ts';
import {
  applyToTarget,
  applyToTargetsOnce,
  clearTargetsMarkers,
  LEASE_MS,
  type MoneyCollections,
  type TargetKind,
  targetDocId,
  targetsOf,
} from './guarded-apply.ts';
import { type KeySpendDoc, noteKeyUses } from './key-spend.mongo.ts';
import { type LedgerDoc, toLedgerEntry } from './ledger.mongo.ts';
import { type CountedState, countedState, resumeIfAbandoned } from './recover-entries.mongo.ts';
import type { WalletDoc } from './wallets.mongo.ts';

/**
 * Records charges on MongoDB without multi-document transactions: the steps of guarded-apply.ts for
 * the whole call, with a few commands per step and per target collection instead of per entry
 * (docs/money-core.md, "MongoDB").
 *
 * (a) one unordered insert of every entry as pending, with its lease;
 * (b) per target document (wallet per account, key spend per account × month, usage row per account ×
 *     day × model), one guarded update adding the group's sum unless any of its markers is present,
 *     sent as one unordered bulk per collection, then one read of the documents (which also tells
 *     which groups counted); a group that met a marker falls back to entry-by-entry guarded updates;
 * (c) one update marking the counted entries applied; (d) one marker-clearing bulk per collection,
 *     then one update closing the entries.
 *
 * An entry whose step (b) failed for any of its targets stays pending with its markers (`deferred`):
 * recovery claims it when its lease runs out and completes it exactly once.
 */
export async function recordChargesMongo(
  collections: MoneyCollections,
  charges: readonly ChargeRecord[],
  now: Date,
  logger: Logger,
): Promise<RecordedCharge[]> {
  const docs = new Map<string, LedgerDoc>();
  for (const charge of charges) if (!docs.has(charge.id)) docs.set(charge.id, pendingChargeDoc(charge, now));
  const existing =
    docs.size === 0 ? new Set<string>() : await collections.ledger.insertManyPending([...docs.values()]);
  const inserted = [...docs.values()].filter((doc) => !existing.has(doc._id));
  const counted = await commitEntries(collections, inserted, logger);
  await noteKeyUses(
    collections.keySpend,
    inserted.filter((doc) => counted.has(doc._id)),
    logger,
  );
  const firstSeen = new Set<string>();
  const results: RecordedCharge[] = [];
  for (const charge of charges) {
    const doc = docs.get(charge.id) as LedgerDoc;
    const repeat = firstSeen.has(charge.id) || existing.has(charge.id);
    firstSeen.add(charge.id);
    if (repeat) results.push(await recordRepeat(collections, charge.id, now, logger));
    else results.push(insertedOutcome(doc, counted.get(doc._id)));
  }
  return results;
}

/** The pending ledger entry of a charge, inserted at `now` (its lease starts then). */
export function pendingChargeDoc(charge: ChargeRecord, now: Date): LedgerDoc {
  return {
    _id: charge.id,
    account_id: charge.accountId,
    key_id: charge.keyId,
    kind: 'charge',
    amount: -charge.costMicros,
    model: charge.model,
    usage: {
      requests: charge.usage.requests,
      input_tokens: charge.usage.inputTokens,
      output_tokens: charge.usage.outputTokens,
    },
    day: charge.day,
    month: charge.month,
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + LEASE_MS),
    created_at: charge.createdAt,
    reference: null,
  };
}

function insertedOutcome(doc: LedgerDoc, counted: CountedState | undefined): RecordedCharge {
  if (counted === undefined) {
    return { outcome: 'deferred', entry: toLedgerEntry(doc), wallet: null, keySpend: null };
  }
  return { outcome: 'recorded', entry: toLedgerEntry({ ...doc, state: 'applied' }), ...counted };
}

/**
 * An id recorded before: counted already (`repeat`), being counted by its driver (`in_progress`), or
 * abandoned by a crashed driver, which this call then completes (`recorded`).
 */
async function recordRepeat(
  collections: MoneyCollections,
  id: string,
  now: Date,
  logger: Logger,
): Promise<RecordedCharge> {
  const existing = await collections.ledger.findById(id);
  if (existing === null) throw new Error(`ledger entry ${id} vanished`);
  if (existing.state === 'applied') {
    return { outcome: 'repeat', entry: toLedgerEntry(existing), wallet: null, keySpend: null };
  }
  const resumed = await resumeIfAbandoned(collections, existing, now, logger);
  if (resumed === null) {
    return { outcome: 'in_progress', entry: toLedgerEntry(existing), wallet: null, keySpend: null };
  }
  return { outcome: 'recorded', entry: toLedgerEntry({ ...existing, state: 'applied' }), ...resumed };
}

/** The entries of a call counting in one target document, and what step (b) did to it. */
interface TargetGroup {
  readonly target: TargetKind;
  readonly entries: [LedgerDoc, ...LedgerDoc[]];
  doc: WalletDoc | KeySpendDoc | null;
  failed: boolean;
}

const TARGET_KINDS: readonly TargetKind[] = ['wallet', 'key_spend', 'usage_daily'];

/** Steps (b)–(d) for pending entries whose lease the caller holds; the entries that counted. */
async function commitEntries(
  collections: MoneyCollections,
  entries: readonly LedgerDoc[],
  logger: Logger,
): Promise<Map<string, CountedState>> {
  const counted = new Map<string, CountedState>();
  if (entries.length === 0) return counted;
  const groups = groupByTarget(entries);
  await Promise.all(
    TARGET_KINDS.map((target) => applyGroups(collections, groupsOfKind(groups, target), target, logger)),
  );
  const groupsOf = (entry: LedgerDoc) =>
    targetsOf(entry).map((target) => groups.get(groupKey(entry, target)) as TargetGroup);
  const settled = entries.filter((entry) => groupsOf(entry).every((group) => !group.failed));
  if (settled.length < entries.length) {
    const entryIds = entries.filter((entry) => !settled.includes(entry)).map((entry) => entry._id);
    logger.error({ entryIds }, 'settlement: entries left pending for recovery');
  }
  if (settled.length === 0) return counted;
  const ids = settled.map((entry) => entry._id);
  try {
    await collections.ledger.markManyApplied(ids);
  } catch (err) {
    // Their markers stay: recovery finds them pending, counts nothing twice and finishes them.
    logger.error({ err, entryIds: ids }, 'settlement: entries left pending for recovery');
    return counted;
  }
  for (const entry of settled) counted.set(entry._id, groupsState(entry, groupsOf(entry)));
  const uncleared = await clearMarkers(collections, groups, new Set(ids), logger);
  await collections.ledger.closeMany(ids.filter((id) => !uncleared.has(id))).catch((err: unknown) => {
    logger.warn({ err }, 'settlement: entries left open for recovery');
  });
  return counted;
}

function groupsOfKind(groups: Map<string, TargetGroup>, target: TargetKind): TargetGroup[] {
  return [...groups.values()].filter((group) => group.target === target);
}

/** Step (b) for the target documents of one kind: one bulk for all of them. */
async function applyGroups(
  collections: MoneyCollections,
  groups: readonly TargetGroup[],
  target: TargetKind,
  logger: Logger,
): Promise<void> {
  if (groups.length === 0) return;
  let results: Awaited<ReturnType<typeof applyToTargetsOnce>>;
  try {
    results = await applyToTargetsOnce(
      collections,
      groups.map((group) => group.entries),
      target,
    );
  } catch (err) {
    for (const group of groups) group.failed = true;
    logger.error({ err, target, groups: groups.length }, 'settlement: a target update failed');
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
          group.doc = newer(group.doc, await applyToTarget(collections, entry, group.target));
      } catch (err) {
        group.failed = true;
        logger.error({ err, target, entries: group.entries.length }, 'settlement: a target update failed');
      }
    }),
  );
}

/** Step (d): each target loses the markers of the applied entries; returns those it kept. */
async function clearMarkers(
  collections: MoneyCollections,
  groups: Map<string, TargetGroup>,
  applied: ReadonlySet<string>,
  logger: Logger,
): Promise<Set<string>> {
  const uncleared = new Set<string>();
  await Promise.all(
    TARGET_KINDS.map(async (target) => {
      const done = groupsOfKind(groups, target)
        .map((group) => group.entries.filter((entry) => applied.has(entry._id)))
        .filter((entries): entries is [LedgerDoc, ...LedgerDoc[]] => entries.length > 0);
      if (done.length === 0) return;
      try {
        await clearTargetsMarkers(collections, done, target);
      } catch (err) {
        for (const entry of done.flat()) uncleared.add(entry._id);
        logger.warn({ err, target }, 'settlement: markers left for recovery');
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

function groupsState(entry: LedgerDoc, groups: readonly TargetGroup[]): CountedState {
  const docOf = (target: TargetKind) => groups.find((group) => group.target === target)?.doc ?? null;
  return countedState(entry, {
    wallet: docOf('wallet') as WalletDoc | null,
    keySpend: docOf('key_spend') as KeySpendDoc | null,
  });
}

function newer<T extends { version: bigint }>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  return b !== null && b.version > a.version ? b : a;
}
