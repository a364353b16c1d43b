import { createHash } from 'node:crypto';
import {
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type Filter,
  MongoBulkWriteError,
  type UpdateFilter,
} from 'mongodb';

/**
 * The guard of one target update of a ledger entry (see guarded-apply.ts). A target document keeps
 * the markers of the entries applied to it in a `pending` map (`pending.<marker>: true`): jongodb
 * has neither `$push` nor `$pull`, while `$set`/`$unset` of a dotted path and `$exists` work on
 * MongoDB and jongodb alike.
 */
export type PendingMap = Record<string, true>;

const SAFE_FIELD = /^[A-Za-z0-9_:-]{1,200}$/;

/** The field name marking an entry: its id when usable as a field name, else a digest of it. */
export function markerOf(entryId: string): string {
  // Field names may not contain '.' nor start with '$'; '~' cannot occur in a safe id.
  return SAFE_FIELD.test(entryId) ? entryId : `~${createHash('sha256').update(entryId).digest('hex')}`;
}

/** True for MongoDB's duplicate key error (a second insert of one `_id`, or a lost upsert race). */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

export interface GuardedIncrement<T extends Document> {
  readonly id: string;
  /** The markers of the entries the increment sums (one, or a group of a settlement batch). */
  readonly markers: readonly string[];
  readonly inc: Record<string, bigint | number>;
  /** Fields a new document starts with (never `pending`, which `$set` fills). */
  readonly onInsert?: Partial<T>;
}

/** The target after the call, and whether this call is the one that applied the increment. */
export interface GuardedResult<T> {
  readonly doc: T | null;
  readonly applied: boolean;
}

/**
 * `$inc` a document unless it already carries any of the markers, creating it when missing, and set
 * them all. A second call with one of the markers matches nothing, so the increment happens at most
 * once while the markers live; a group with one marker present is not applied at all.
 */
export async function incrementOnce<T extends Document & { _id: string }>(
  collection: Collection<T>,
  change: GuardedIncrement<T>,
): Promise<GuardedResult<T>> {
  const { filter, update, upsert } = guardedUpdate(change);
  try {
    const doc = await collection.findOneAndUpdate(filter as Filter<T>, upsert, {
      upsert: true,
      returnDocument: 'after',
    });
    if (doc !== null) return { doc: doc as T, applied: true };
  } catch (error) {
    // The upsert tried to insert: either a marker is there already, or another upsert created the
    // document first. The document exists now, so a plain guarded update tells the two apart.
    if (!isDuplicateKey(error)) throw error;
  }
  const doc = await collection.findOneAndUpdate(filter as Filter<T>, update, { returnDocument: 'after' });
  if (doc !== null) return { doc: doc as T, applied: true };
  return { doc: (await collection.findOne({ _id: change.id } as Filter<T>)) as T | null, applied: false };
}

/**
 * `incrementOnce` for several documents of one collection in two commands (a settlement batch's
 * groups): one unordered bulk of guarded upserts, then one read of the documents. A change counts
 * as applied when its document carries all of its markers afterwards: set by this bulk, or (a
 * recovery took them over) by their own drivers; either way each entry counted once. A change
 * reported not applied found some marker present and applied nothing: the caller goes entry by
 * entry (a refused upsert, or a server that refuses the whole bulk over it, ends there too).
 */
export async function incrementManyOnce<T extends Document & { _id: string }>(
  collection: Collection<T>,
  changes: readonly GuardedIncrement<T>[],
): Promise<GuardedResult<T>[]> {
  if (changes.length === 0) return [];
  const operations = changes.map((change): AnyBulkWriteOperation<T> => {
    const { filter, upsert } = guardedUpdate(change);
    return { updateOne: { filter: filter as Filter<T>, update: upsert, upsert: true } };
  });
  try {
    await collection.bulkWrite(operations, { ordered: false });
  } catch (error) {
    // Duplicate keys are upserts that met a marker (or lost a creation race): the read decides.
    if (!onlyDuplicateKeys(error)) throw error;
  }
  const ids = changes.map((change) => change.id);
  const docs = await collection.find({ _id: { $in: ids } } as Filter<T>).toArray();
  const byId = new Map(docs.map((doc) => [doc._id as string, doc as T]));
  return changes.map((change) => {
    const doc = byId.get(change.id) ?? null;
    const pending = (doc?.pending ?? {}) as PendingMap;
    return { doc, applied: doc !== null && change.markers.every((marker) => pending[marker] === true) };
  });
}

/** The guarded filter, the update, and the update as an upsert (with the new document's fields). */
function guardedUpdate<T extends Document>(change: GuardedIncrement<T>) {
  const filter: Record<string, unknown> = { _id: change.id };
  const markers: Record<string, true> = {};
  for (const marker of change.markers) {
    filter[`pending.${marker}`] = { $exists: false };
    markers[`pending.${marker}`] = true;
  }
  const update = { $inc: change.inc, $set: markers } as UpdateFilter<T>;
  const upsert = { ...update, $setOnInsert: change.onInsert ?? {} } as UpdateFilter<T>;
  return { filter: filter as Filter<T>, update, upsert };
}

function onlyDuplicateKeys(error: unknown): boolean {
  if (error instanceof MongoBulkWriteError) {
    const writeErrors = [error.writeErrors].flat();
    if (writeErrors.length > 0) return writeErrors.every(isDuplicateKey);
  }
  return isDuplicateKey(error);
}

/** A target document and the markers to remove from it. */
export interface MarkerClearing {
  readonly id: string;
  readonly markers: readonly string[];
}

/**
 * Removes entries' markers from target documents, once the entries are recorded as applied: one
 * unordered bulk for the collection. Idempotent.
 */
export async function clearMarkers<T extends Document & { _id: string }>(
  collection: Collection<T>,
  clearings: readonly MarkerClearing[],
): Promise<void> {
  if (clearings.length === 0) return;
  const operations = clearings.map(({ id, markers }): AnyBulkWriteOperation<T> => {
    const unset: Record<string, ''> = {};
    for (const marker of markers) unset[`pending.${marker}`] = '';
    return { updateOne: { filter: { _id: id } as Filter<T>, update: { $unset: unset } as UpdateFilter<T> } };
  });
  await collection.bulkWrite(operations, { ordered: false });
}

/** The writes every money target collection offers (wallets, key spend, usage rows). */
export interface GuardedTarget<T extends Document> {
  /** Adds ledger entries once, guarded by their markers. */
  applyOne(change: GuardedIncrement<T>): Promise<GuardedResult<T>>;
  /** `applyOne` for a settlement batch's documents, in two commands. */
  applyMany(changes: readonly GuardedIncrement<T>[]): Promise<GuardedResult<T>[]>;
  clearMarkers(clearings: readonly MarkerClearing[]): Promise<void>;
}

export function guardedTarget<T extends Document & { _id: string }>(
  collection: Collection<T>,
): GuardedTarget<T> {
  return {
    applyOne: (change) => incrementOnce(collection, change),
    applyMany: (changes) => incrementManyOnce(collection, changes),
    clearMarkers: (clearings) => clearMarkers(collection, clearings),
  };
}
