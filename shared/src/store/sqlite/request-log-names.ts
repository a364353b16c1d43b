import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Kinds of `names`, the request log's dictionary of repeated strings. */
export const NAME_KIND = {
  account: 1,
  model: 2,
  provider: 3,
  path: 4,
  endpoint: 5,
  error: 6,
  channel: 7,
  ip: 8,
  method: 9,
} as const;
export type NameKind = (typeof NAME_KIND)[keyof typeof NAME_KIND];

/** The dictionary's tables: every repeated string a small integer, keys with their account and last 4. */
export const NAMES_SCHEMA = `
CREATE TABLE IF NOT EXISTS names (
  id INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (kind, value)
);
CREATE TABLE IF NOT EXISTS keys (
  id INTEGER PRIMARY KEY,
  key_id TEXT NOT NULL UNIQUE,
  account INTEGER NOT NULL,
  last4 TEXT NOT NULL
);
`;

interface StoredKey {
  readonly keyId: string;
  readonly account: number;
  readonly last4: string;
}

/**
 * The request log's dictionary (account, model, provider, path, endpoint, error code, channel, ip
 * and method names; keys), cached both ways in memory. Writes happen inside the caller's
 * transaction: after a rollback the caller calls `forget`, since what was written is not in the file.
 */
export class RequestLogNames {
  /** By kind, then value (no key string made per field on the write path). */
  readonly #ids = new Map<NameKind, Map<string, number>>();
  readonly #values = new Map<number, string>();
  readonly #keyIds = new Map<string, number>();
  readonly #keys = new Map<number, StoredKey>();
  readonly #nameInsert: StatementSync;
  readonly #nameSelect: StatementSync;
  readonly #nameById: StatementSync;
  readonly #keyInsert: StatementSync;
  readonly #keySelect: StatementSync;
  readonly #keyById: StatementSync;

  constructor(db: DatabaseSync) {
    this.#nameInsert = db.prepare('INSERT OR IGNORE INTO names (kind, value) VALUES (?, ?)');
    this.#nameSelect = db.prepare('SELECT id FROM names WHERE kind = ? AND value = ?');
    this.#nameById = db.prepare('SELECT value FROM names WHERE id = ?');
    this.#keyInsert = db.prepare('INSERT OR IGNORE INTO keys (key_id, account, last4) VALUES (?, ?, ?)');
    this.#keySelect = db.prepare('SELECT id, account, last4 FROM keys WHERE key_id = ?');
    this.#keyById = db.prepare('SELECT key_id, account, last4 FROM keys WHERE id = ?');
  }

  /** The id of `value`, written when new. */
  name(kind: NameKind, value: string): number {
    const ids = this.#idsOf(kind);
    const known = ids.get(value);
    if (known !== undefined) return known;
    this.#nameInsert.run(kind, value);
    const id = (this.#nameSelect.get(kind, value) as { id: number }).id;
    ids.set(value, id);
    this.#values.set(id, value);
    return id;
  }

  nullableName(kind: NameKind, value: string | null): number | null {
    return value === null ? null : this.name(kind, value);
  }

  /** The id of `value` when it was ever written (a filter on a never-seen value matches nothing). */
  existingName(kind: NameKind, value: string): number | undefined {
    const known = this.#idsOf(kind).get(value);
    if (known !== undefined) return known;
    return (this.#nameSelect.get(kind, value) as { id: number } | undefined)?.id;
  }

  key(keyId: string, account: number, last4: string): number {
    const known = this.#keyIds.get(keyId);
    if (known !== undefined) return known;
    this.#keyInsert.run(keyId, account, last4);
    const row = this.#keySelect.get(keyId) as { id: number; account: number; last4: string };
    this.#keyIds.set(keyId, row.id);
    this.#keys.set(row.id, { keyId, account: row.account, last4: row.last4 });
    return row.id;
  }

  existingKey(keyId: string): number | undefined {
    return this.#keyIds.get(keyId) ?? (this.#keySelect.get(keyId) as { id: number } | undefined)?.id;
  }

  keyOf(id: number): StoredKey {
    const known = this.#keys.get(id);
    if (known !== undefined) return known;
    const row = this.#keyById.get(id) as { key_id: string; account: number; last4: string };
    const key = { keyId: row.key_id, account: row.account, last4: row.last4 };
    this.#keys.set(id, key);
    return key;
  }

  value(id: number): string {
    const known = this.#values.get(id);
    if (known !== undefined) return known;
    const value = (this.#nameById.get(id) as { value: string }).value;
    this.#values.set(id, value);
    return value;
  }

  nullableValue(id: number | null): string | null {
    return id === null ? null : this.value(id);
  }

  #idsOf(kind: NameKind): Map<string, number> {
    let ids = this.#ids.get(kind);
    if (ids === undefined) {
      ids = new Map();
      this.#ids.set(kind, ids);
    }
    return ids;
  }

  forget(): void {
    this.#ids.clear();
    this.#values.clear();
    this.#keyIds.clear();
    this.#keys.clear();
  }
}
