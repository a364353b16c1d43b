import type { Db } from 'mongodb';
import {
  type ApiKeyRecord,
  type ApiKeysRepository,
  type NewApiKey,
  newKeyId,
  SLOT_TAKEN,
  STALE_REVISION,
} from '../../accounts/api-keys.repository.ts';
import type { KeySettings } from '../../accounts/key-settings.ts';
import { declareIndexes } from './indexes.ts';
import { isDuplicateKeyOn } from './mongo-errors.ts';

/** The MongoDB document of collection `api_keys` (docs/money-core.md), plus `slot` and `revision`. */
interface ApiKeyDocument {
  _id: string;
  account_id: string;
  hash: string;
  last4: string;
  name: string;
  rate_limit: number;
  monthly_cap: bigint | null;
  allowed_ips: string[];
  allowed_models: string[] | null;
  identity_injection: boolean;
  expires_at: Date | null;
  active: boolean;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  revision: number;
  /** Absent unless held: the unique index is sparse, so keys without a slot never collide. */
  slot?: string;
}

export const API_KEYS_COLLECTION = 'api_keys';
const HASH_INDEX = 'hash_unique';
const SLOT_INDEX = 'slot_unique';

declareIndexes(API_KEYS_COLLECTION, [
  // serves: findByHash() on every authenticated request (through the key cache)
  { key: { hash: 1 }, name: HASH_INDEX, unique: true },
  // serves: listByAccount(), occupiedSlots() and releaseExpiredSlots()
  { key: { account_id: 1, created_at: 1 }, name: 'account_created' },
  // serves: the 25-active-keys limit; a slot value can be held by one key only (key-slots.ts)
  { key: { slot: 1 }, name: SLOT_INDEX, unique: true, sparse: true },
]);

/** The API keys repository on the given database. */
export function createMongoApiKeysRepository(db: Db): ApiKeysRepository {
  // Int64 amounts (monthly_cap) come back as bigint, never as a lossy number.
  const collection = db.collection<ApiKeyDocument>(API_KEYS_COLLECTION, { useBigInt64: true });
  return {
    async insert(key, slot, now) {
      const document = toDocument(key, slot, now);
      try {
        await collection.insertOne(document);
      } catch (error) {
        if (isDuplicateKeyOn(error, SLOT_INDEX)) return SLOT_TAKEN;
        throw error;
      }
      return toRecord(document);
    },

    async findByHash(hash) {
      const document = await collection.findOne({ hash });
      return document === null ? null : toRecord(document);
    },

    async findById(id) {
      const document = await collection.findOne({ _id: id });
      return document === null ? null : toRecord(document);
    },

    async listByAccount(accountId) {
      const documents = await collection
        .find({ account_id: accountId, deleted_at: null })
        .sort({ created_at: 1, _id: 1 })
        .toArray();
      return documents.map(toRecord);
    },

    async occupiedSlots(accountId) {
      const documents = await collection.find({ account_id: accountId, slot: { $exists: true } }).toArray();
      return documents.flatMap((document) => (document.slot === undefined ? [] : [document.slot]));
    },

    async releaseExpiredSlots(accountId, now) {
      const result = await collection.updateMany(
        { account_id: accountId, slot: { $exists: true }, expires_at: { $ne: null, $lte: now } },
        { $unset: { slot: '' }, $inc: { revision: 1 } },
      );
      return result.modifiedCount;
    },

    async update(id, revision, changes, slot, now) {
      const set = { ...settingsFields(changes), updated_at: now, ...(slot === null ? {} : { slot }) };
      try {
        const document = await collection.findOneAndUpdate(
          { _id: id, revision, deleted_at: null },
          { $set: set, $inc: { revision: 1 }, ...(slot === null ? { $unset: { slot: '' as const } } : {}) },
          { returnDocument: 'after' },
        );
        return document === null ? STALE_REVISION : toRecord(document);
      } catch (error) {
        if (isDuplicateKeyOn(error, SLOT_INDEX)) return SLOT_TAKEN;
        throw error;
      }
    },

    async markDeleted(id, now) {
      const document = await collection.findOneAndUpdate(
        { _id: id, deleted_at: null },
        { $set: { deleted_at: now, updated_at: now }, $unset: { slot: '' }, $inc: { revision: 1 } },
        { returnDocument: 'after' },
      );
      return document === null ? null : toRecord(document);
    },
  };
}

function toDocument(key: NewApiKey, slot: string | null, now: Date): ApiKeyDocument {
  const document: ApiKeyDocument = {
    _id: newKeyId(),
    account_id: key.accountId,
    hash: key.hash,
    last4: key.last4,
    name: key.name,
    rate_limit: key.rateLimit,
    monthly_cap: key.monthlyCapMicros,
    allowed_ips: [...key.allowedIps],
    allowed_models: key.allowedModels && [...key.allowedModels],
    identity_injection: key.identityInjection,
    expires_at: key.expiresAt,
    active: key.active,
    deleted_at: null,
    created_at: now,
    updated_at: now,
    revision: 0,
  };
  if (slot !== null) document.slot = slot;
  return document;
}

/** The document fields of the settings present in `settings`. */
function settingsFields(settings: Partial<KeySettings>): Partial<ApiKeyDocument> {
  const fields: Partial<ApiKeyDocument> = {};
  if (settings.name !== undefined) fields.name = settings.name;
  if (settings.rateLimit !== undefined) fields.rate_limit = settings.rateLimit;
  if (settings.monthlyCapMicros !== undefined) fields.monthly_cap = settings.monthlyCapMicros;
  if (settings.allowedIps !== undefined) fields.allowed_ips = [...settings.allowedIps];
  if (settings.allowedModels !== undefined)
    fields.allowed_models = settings.allowedModels && [...settings.allowedModels];
  if (settings.identityInjection !== undefined) fields.identity_injection = settings.identityInjection;
  if (settings.expiresAt !== undefined) fields.expires_at = settings.expiresAt;
  if (settings.active !== undefined) fields.active = settings.active;
  return fields;
}

function toRecord(document: ApiKeyDocument): ApiKeyRecord {
  return {
    id: document._id,
    accountId: document.account_id,
    hash: document.hash,
    last4: document.last4,
    name: document.name,
    rateLimit: document.rate_limit,
    monthlyCapMicros: document.monthly_cap === null ? null : BigInt(document.monthly_cap),
    allowedIps: document.allowed_ips,
    allowedModels: document.allowed_models,
    identityInjection: document.identity_injection,
    expiresAt: document.expires_at,
    active: document.active,
    deletedAt: document.deleted_at,
    createdAt: document.created_at,
    updatedAt: document.updated_at,
    revision: document.revision,
    slot: document.slot ?? null,
  };
}
