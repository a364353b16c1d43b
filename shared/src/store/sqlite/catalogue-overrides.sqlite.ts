import type { DatabaseSync } from 'node:sqlite';
import {
  type CatalogueChange,
  type CatalogueOverridesRepository,
  type ChangeActor,
  changeIdOf,
  type OverrideValue,
  sequenceOfChangeId,
} from '../../catalogue/live/catalogue-overrides.repository.ts';
import { transaction } from './database.ts';

interface OverrideRow {
  subject: string;
  field: string;
  value: string;
  updated_at: number;
}

interface ChangeRow {
  seq: number;
  created_at: number;
  actor: ChangeActor;
  subject: string;
  field: string;
  before: string;
  after: string;
}

/** The catalogue overrides on SQLite: one transaction stores the value, its history entry and the version. */
export function createSqliteCatalogueOverridesRepository(db: DatabaseSync): CatalogueOverridesRepository {
  const readVersion = db.prepare('SELECT version FROM catalogue_version WHERE id = 1');
  const all = db.prepare('SELECT * FROM catalogue_overrides ORDER BY subject, field');
  const upsert = db.prepare(
    `INSERT INTO catalogue_overrides (subject, field, value, updated_at) VALUES (:subject, :field, :value, :now)
     ON CONFLICT (subject, field) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const bump = db.prepare(
    'UPDATE catalogue_version SET version = version + 1 WHERE id = 1 RETURNING version',
  );
  const record = db.prepare(
    `INSERT INTO catalogue_changes (seq, created_at, actor, subject, field, before, after)
     VALUES (:seq, :created, :actor, :subject, :field, :before, :after)`,
  );
  const page = db.prepare(
    'SELECT * FROM catalogue_changes WHERE seq < :before ORDER BY seq DESC LIMIT :limit',
  );

  const version = () => Number((readVersion.get() as { version: number }).version);
  return {
    async version() {
      return version();
    },

    async load() {
      // One read transaction: the version and the rows it stands for.
      db.exec('BEGIN');
      try {
        const at = version();
        const rows = all.all() as unknown as OverrideRow[];
        return {
          version: at,
          entries: rows.map((row) => ({
            subject: row.subject,
            field: row.field,
            value: JSON.parse(row.value) as OverrideValue,
            updatedAt: new Date(row.updated_at),
          })),
        };
      } finally {
        db.exec('COMMIT');
      }
    },

    async write(change) {
      return transaction(db, () => {
        const now = change.now.getTime();
        upsert.run({
          subject: change.subject,
          field: change.field,
          value: JSON.stringify(change.value),
          now,
        });
        const seq = Number((bump.get() as { version: number }).version);
        const created = Math.floor(now / 1000);
        record.run({
          seq,
          created,
          actor: change.actor,
          subject: change.subject,
          field: change.field,
          before: JSON.stringify(change.before ?? null),
          after: JSON.stringify(change.value),
        });
        return toChange({
          seq,
          created_at: created,
          actor: change.actor,
          subject: change.subject,
          field: change.field,
          before: JSON.stringify(change.before ?? null),
          after: JSON.stringify(change.value),
        });
      });
    },

    async listChanges(query) {
      const before =
        query.cursor === undefined ? Number.MAX_SAFE_INTEGER : (sequenceOfChangeId(query.cursor) ?? 0);
      const rows = page.all({ before, limit: query.limit + 1 }) as unknown as ChangeRow[];
      const changes = rows.slice(0, query.limit).map(toChange);
      const last = changes.at(-1);
      return { changes, nextCursor: rows.length > query.limit && last !== undefined ? last.id : null };
    },
  };
}

function toChange(row: ChangeRow): CatalogueChange {
  return {
    id: changeIdOf(row.seq),
    created: row.created_at,
    actor: row.actor,
    subject: row.subject,
    field: row.field,
    before: JSON.parse(row.before) as unknown,
    after: JSON.parse(row.after) as unknown,
  };
}
