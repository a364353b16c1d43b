import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS, type Migration } from './migrations.ts';

/** The store could not be opened: names the file and the cause; the process must not serve. */
export class StoreOpenError extends Error {
  constructor(path: string, cause: unknown) {
    super(`SQLite store at ${path} cannot be used: ${describe(cause)}`, { cause });
    this.name = 'StoreOpenError';
  }
}

export interface SqliteOptions {
  readonly path: string;
  /** How long a statement waits for another connection's write lock (busy_timeout). */
  readonly busyTimeoutMs: number;
}

/**
 * Opens the database file (creating it and its folder when missing), sets WAL mode, the busy
 * timeout and `synchronous = NORMAL`, checks the file's integrity cheaply, and applies pending
 * migrations. Every failure is a StoreOpenError naming the file: a corrupt, locked or unwritable
 * file stops the start-up instead of answering requests with half a store.
 *
 * Durability: in WAL mode with `synchronous = NORMAL` a committed transaction survives the process
 * being killed at any point; only a power loss or OS crash can lose the last few commits (FULL would
 * put an fsync, which blocks the event loop, on every commit).
 */
export function openSqlite(options: SqliteOptions): DatabaseSync {
  const path = options.path === ':memory:' ? options.path : resolve(options.path);
  let db: DatabaseSync | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new DatabaseSync(path, { timeout: options.busyTimeoutMs });
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    const check = db.prepare('PRAGMA quick_check').get() as { quick_check?: string } | undefined;
    if (check?.quick_check !== 'ok')
      throw new Error(`integrity check failed: ${check?.quick_check ?? 'no answer'}`);
    migrate(db, MIGRATIONS);
    return db;
  } catch (err) {
    try {
      db?.close();
    } catch {
      // The open failed; closing what was opened is best effort.
    }
    throw new StoreOpenError(path, err);
  }
}

/** Applies the migrations newer than the file's `user_version`, each in its own write transaction. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): void {
  const version = () => (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  const applied = version();
  for (const migration of migrations) {
    if (migration.version <= applied) continue;
    transaction(db, () => {
      // Re-read inside the write lock: another process may have applied it meanwhile.
      const current = version();
      if (current >= migration.version) return;
      if (current !== migration.version - 1) {
        throw new Error(`schema version ${current} cannot take migration ${migration.version}`);
      }
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    });
  }
  const newest = migrations.at(-1)?.version ?? 0;
  if (version() > newest)
    throw new Error(`schema version ${version()} is newer than this release knows (${newest})`);
}

/**
 * Runs `work` in a write transaction taken at once (`BEGIN IMMEDIATE`: the write lock is waited for
 * under busy_timeout up front, so two writers never deadlock upgrading a read), committing when it
 * returns and rolling back when it throws. `work` must be synchronous: nothing else runs meanwhile.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown; errstr?: unknown }).errstr ?? (cause as { code?: unknown }).code;
  return typeof code === 'string' && !cause.message.includes(code)
    ? `${cause.message} (${code})`
    : cause.message;
}
