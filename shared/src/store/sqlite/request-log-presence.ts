import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Segment } from './request-log-segments.ts';

/**
 * Which accounts each partition holds, and whether any of their requests there failed. An
 * account's pages (`account_id=`, the holder's own list, `key_id=` through the key's account)
 * read only the partitions the account has records in, and its errors only those where one of
 * its requests failed: a quiet account's page does not probe every day of the retention.
 */
const PRESENCE_SCHEMA = `
CREATE TABLE presence (
  account INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (account, start_ms)
) WITHOUT ROWID;
-- Retention: a dropped partition's entries go with it.
CREATE INDEX presence_by_segment ON presence (start_ms);
`;

/** Partitions whose noted accounts are kept in memory (the ones being written; the newest). */
const KNOWN_SEGMENTS = 4;

export class RequestLogPresence {
  readonly #upsert: StatementSync;
  readonly #select: StatementSync;
  readonly #delete: StatementSync;
  /** By partition start: the accounts noted in it this process, and whether as failed (1) or not (0). */
  readonly #known = new Map<number, Map<number, number>>();

  /** Creates the table on first open, filled from the partitions already there (in one transaction). */
  constructor(db: DatabaseSync, segments: readonly Segment[]) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const exists = db
        .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'presence'")
        .get();
      if (exists === undefined) {
        db.exec(PRESENCE_SCHEMA);
        for (const segment of segments)
          db.prepare(
            `INSERT INTO presence (account, start_ms, failed) SELECT account, ?, max(err) FROM ${segment.name} GROUP BY account`,
          ).run(segment.startMs);
      }
      db.exec('COMMIT');
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw err;
    }
    this.#upsert = db.prepare(
      'INSERT INTO presence (account, start_ms, failed) VALUES (?, ?, ?) ' +
        'ON CONFLICT (account, start_ms) DO UPDATE SET failed = max(failed, excluded.failed)',
    );
    this.#select = db.prepare('SELECT start_ms FROM presence WHERE account = ? AND failed >= ?');
    this.#delete = db.prepare(
      'DELETE FROM presence WHERE (account, start_ms) IN (SELECT account, start_ms FROM presence' +
        ' INDEXED BY presence_by_segment WHERE start_ms < ? LIMIT ?)',
    );
  }

  /** A record of `account` was written to `segment` (inside the write's transaction). */
  note(segment: Segment, account: number, failed: boolean): void {
    const flag = failed ? 1 : 0;
    let known = this.#known.get(segment.startMs);
    if (known === undefined) {
      known = new Map();
      this.#known.set(segment.startMs, known);
      if (this.#known.size > KNOWN_SEGMENTS) this.#known.delete(this.#known.keys().next().value as number);
    }
    const noted = known.get(account);
    if (noted !== undefined && noted >= flag) return;
    this.#upsert.run(account, segment.startMs, flag);
    known.set(account, flag);
  }

  /** The starts of the partitions holding records of `account` (with a failed one, if `failedOnly`). */
  segmentsOf(account: number, failedOnly: boolean): Set<number> {
    const rows = this.#select.all(account, failedOnly ? 1 : 0) as Array<{ start_ms: number }>;
    return new Set(rows.map((row) => row.start_ms));
  }

  /**
   * Deletes up to `batch` entries of partitions starting before `beforeMs` (dropped ones; inside
   * the retention step's transaction) and tells whether that was all. A dropped partition's
   * entries (one per account it held) go in such steps after it, so no step deletes thousands;
   * until then they are never read, only registered partitions being looked up.
   */
  sweep(beforeMs: number, batch: number): boolean {
    return Number(this.#delete.run(beforeMs, batch).changes) < batch;
  }

  /**
   * Forgets what this process noted: after a rollback it is not in the file, and after another
   * connection changed the partitions it may be stale.
   */
  forget(): void {
    this.#known.clear();
  }
}
