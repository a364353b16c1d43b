import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { MEDIA_JOBS_COLLECTION, type MediaJobDoc } from './media-jobs.mongo.ts';
import { isIndexNotFound, isNamespaceNotFound } from './mongo-errors.ts';

/** The collection's first field names (camel case), renamed at start by `upgradeMediaJobDocuments`. */
const CAMEL_CASE_FIELDS = {
  accountId: 'account_id',
  keyId: 'key_id',
  holdMicros: 'hold_micros',
  costMicros: 'cost_micros',
  deadlineAt: 'deadline_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  completedAt: 'completed_at',
  expiresAt: 'expires_at',
  deletedAt: 'deleted_at',
} as const satisfies Record<string, keyof MediaJobDoc>;
const CAMEL_CASE_INDEXES = ['account_kind_created', 'status_kind_updated'];
const UPGRADE_BATCH = 500;
/** Where finished upgrades are recorded, so a start does not scan the jobs again. */
const UPGRADES_COLLECTION = 'store_upgrades';
const UPGRADE_ID = 'media_jobs_snake_case';

function renamed(doc: Document): Document {
  const out: Document = {};
  for (const [field, value] of Object.entries(doc)) {
    out[CAMEL_CASE_FIELDS[field as keyof typeof CAMEL_CASE_FIELDS] ?? field] = value;
  }
  delete out._id;
  return out;
}

/**
 * Brings documents stored under the first, camel-case field names to the snake-case ones, and
 * drops the indexes on the old names. Run at start before the indexes are created; idempotent, and
 * safe when several replicas start together (a document is renamed once; an index another replica
 * dropped first is skipped). Done once per database: it is recorded in `store_upgrades`, and a
 * later start reads that record instead of scanning the jobs (no index serves the old names).
 */
export async function upgradeMediaJobDocuments(db: Db, now = new Date()): Promise<void> {
  const upgrades = db.collection<{ _id: string; done_at: Date }>(UPGRADES_COLLECTION);
  if ((await upgrades.findOne({ _id: UPGRADE_ID })) !== null) return;
  // Read with int64 kept as bigint, so the money fields are written back as the int64 they were.
  const collection = db.collection(MEDIA_JOBS_COLLECTION, { useBigInt64: true });
  // Replaced document by document ($rename is not in every MongoDB-wire server): only while it
  // still has its old fields, so a document another replica renamed first is left alone.
  const old = collection.find({ createdAt: { $exists: true } }, { batchSize: UPGRADE_BATCH });
  let batch: AnyBulkWriteOperation[] = [];
  for await (const doc of old) {
    batch.push({
      replaceOne: { filter: { _id: doc._id, createdAt: { $exists: true } }, replacement: renamed(doc) },
    });
    if (batch.length === UPGRADE_BATCH) {
      await collection.bulkWrite(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length > 0) await collection.bulkWrite(batch, { ordered: false });
  const existing = await collection
    .listIndexes()
    .toArray()
    .catch((err: unknown) => {
      if (isNamespaceNotFound(err)) return [];
      throw err;
    });
  for (const { name } of existing) {
    if (!CAMEL_CASE_INDEXES.includes(name)) continue;
    await collection.dropIndex(name).catch((err: unknown) => {
      if (!isIndexNotFound(err)) throw err;
    });
  }
  await upgrades.updateOne({ _id: UPGRADE_ID }, { $set: { done_at: now } }, { upsert: true });
}
