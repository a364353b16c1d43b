import { createHash } from 'node:crypto';
import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';

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
  const filter: Record<string, unknown> = { _id: change.id };
  const markers: Record<string, true> = {};
  for (const marker of change.markers) {
    filter[`pending.${marker}`] = { $exists: false };
    markers[`pending.${marker}`] = true;
  }
  const update = { $inc: change.inc, $set: markers } as UpdateFilter<T>;
  try {
    const upsert = { ...update, $setOnInsert: change.onInsert ?? {} } as UpdateFilter<T>;
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

/** Removes entries' markers from a target, once the entries are recorded as applied. Idempotent. */
export async function clearMarkers<T extends Document & { _id: string }>(
  collection: Collection<T>,
  id: string,
  markers: readonly string[],
): Promise<void> {
  const unset: Record<string, ''> = {};
  for (const marker of markers) unset[`pending.${marker}`] = '';
  await collection.updateOne({ _id: id } as Filter<T>, { $unset: unset } as UpdateFilter<T>);
}
