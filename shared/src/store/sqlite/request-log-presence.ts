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
  start_ms INTEGER NOT NULL,
  account INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (start_ms, account)
) WITHOUT ROWID;
`;

/** Partitions whose noted accounts are kept in memory (the ones being written; the newest). */
const KNOWN_SEGMENTS = 4;

export class RequestLogPresence {
  readonly #upsert: StatementSync;
  readonly #probe: StatementSync;
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
            `INSERT INTO presence (start_ms, account, failed) SELECT ?, account, max(err) FROM ${segment.name} GROUP BY account`,
          ).run(segment.startMs);
      }
      db.exec('COMMIT');
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw err;
    }
    this.#upsert = db.prepare(
      'INSERT INTO presence (start_ms, account, failed) VALUES (?, ?, ?) ' +
        'ON CONFLICT (start_ms, account) DO UPDATE SET failed = max(failed, excluded.failed)',
    );
    this.#probe = db.prepare('SELECT failed FROM presence WHERE start_ms = ? AND account = ?');
    // A partition's entries are one range of the key: its drop deletes a few pages.
    this.#delete = db.prepare('DELETE FROM presence WHERE start_ms = ?');
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
    this.#upsert.run(segment.startMs, account, flag);
    known.set(account, flag);
  }

  /**
   * Whether `segment` holds records of `account` (a failed one, if `failedOnly`): one probe of
   * the key, so a page walking a year of partitions costs a lookup each for those it skips.
   */
  holds(segment: Segment, account: number, failedOnly: boolean): boolean {
    const row = this.#probe.get(segment.startMs, account) as { failed: number } | undefined;
    return row !== undefined && (!failedOnly || row.failed === 1);
  }

  /** A partition is dropped (inside its transaction). */
  dropped(segment: Segment): void {
    this.#delete.run(segment.startMs);
    this.#known.delete(segment.startMs);
  }

  /**
   * Forgets what this process noted: after a rollback it is not in the file, and after another
   * connection changed the partitions it may be stale.
   */
  forget(): void {
    this.#known.clear();
  }
}
