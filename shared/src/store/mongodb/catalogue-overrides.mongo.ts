import type { Db } from 'mongodb';
import {
  type CatalogueChange,
  type CatalogueOverridesRepository,
  type ChangeActor,
  changeIdOf,
  type OverrideValue,
  sequenceOfChangeId,
} from '../../catalogue/live/catalogue-overrides.repository.ts';

interface OverrideDocument {
  /** `<subject>\u0000<field>`: one document per field of a subject. */
  _id: string;
  subject: string;
  field: string;
  value: OverrideValue;
  updated_at: Date;
}

interface ChangeDocument {
  /** The version the change made: the order of the history. */
  _id: number;
  created: number;
  actor: ChangeActor;
  subject: string;
  field: string;
  before: unknown;
  after: unknown;
}

interface VersionDocument {
  _id: 'version';
  version: number;
}

export const CATALOGUE_OVERRIDES_COLLECTION = 'catalogue_overrides';
export const CATALOGUE_CHANGES_COLLECTION = 'catalogue_changes';
export const CATALOGUE_VERSION_COLLECTION = 'catalogue_version';

/**
 * The catalogue overrides on MongoDB. A write stores the value first and bumps the version after
 * (a reader that saw the old version and loaded before the write sees the new one next time),
 * then records the history entry under the new version.
 */
export function createMongoCatalogueOverridesRepository(db: Db): CatalogueOverridesRepository {
  const overrides = db.collection<OverrideDocument>(CATALOGUE_OVERRIDES_COLLECTION);
  const changes = db.collection<ChangeDocument>(CATALOGUE_CHANGES_COLLECTION);
  const versions = db.collection<VersionDocument>(CATALOGUE_VERSION_COLLECTION);
  const version = async () => (await versions.findOne({ _id: 'version' }))?.version ?? 0;
  return {
    version,

    async load() {
      const at = await version();
      const documents = await overrides.find({}).sort({ _id: 1 }).toArray();
      return {
        version: at,
        entries: documents.map((document) => ({
          subject: document.subject,
          field: document.field,
          value: document.value ?? null,
          updatedAt: document.updated_at,
        })),
      };
    },

    async write(change) {
      await overrides.updateOne(
        { _id: `${change.subject}\u0000${change.field}` },
        {
          $set: {
            subject: change.subject,
            field: change.field,
            value: change.value,
            updated_at: change.now,
          },
        },
        { upsert: true },
      );
      const bumped = await versions.findOneAndUpdate(
        { _id: 'version' },
        { $inc: { version: 1 } },
        { upsert: true, returnDocument: 'after' },
      );
      const seq = bumped?.version ?? 1;
      const document: ChangeDocument = {
        _id: seq,
        created: Math.floor(change.now.getTime() / 1000),
        actor: change.actor,
        subject: change.subject,
        field: change.field,
        before: change.before ?? null,
        after: change.value,
      };
      await changes.insertOne(document);
      return toChange(document);
    },

    async listChanges(query) {
      const before =
        query.cursor === undefined ? Number.MAX_SAFE_INTEGER : (sequenceOfChangeId(query.cursor) ?? 0);
      const found = await changes
        .find({ _id: { $lt: before } })
        .sort({ _id: -1 })
        .limit(query.limit + 1)
        .toArray();
      const page = found.slice(0, query.limit).map(toChange);
      const last = page.at(-1);
      return { changes: page, nextCursor: found.length > query.limit && last !== undefined ? last.id : null };
    },
  };
}

function toChange(document: ChangeDocument): CatalogueChange {
  return {
    id: changeIdOf(document._id),
    created: document.created,
    actor: document.actor,
    subject: document.subject,
    field: document.field,
    before: document.before ?? null,
    after: document.after ?? null,
  };
}
