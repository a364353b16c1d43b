/**
 * What a bench phase left in its SQLite store file, read from outside the gateway: the file's size
 * (database + write-ahead log), row counts, and the ledger check (every wallet equals the sum of
 * its ledger entries, the same comparison as the store's own `checkLedger`). The file is opened
 * read-only (`node:sqlite`, `readOnly: true`), so this can run while the api still writes (WAL
 * readers do not block the writer) and never changes the gateway's data.
 */
import { existsSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { median } from './stats.ts';

export interface FileSize {
  /** Bytes of the database file and of its `-wal` file (0 when absent). */
  readonly db: number;
  readonly wal: number;
}

export interface StoreCounts {
  readonly ledgerRows: number;
  readonly wallets: number;
  readonly accounts: number;
  readonly mediaJobs: number;
}

export interface LedgerDifference {
  readonly accountId: string;
  readonly balance: string;
  readonly ledger: string;
}

/** One look at the file: its size first (opening it read-only may create an empty -wal/-shm). */
export interface StoreSnapshot extends StoreCounts {
  readonly size: FileSize;
}

export interface LedgerVerdict {
  /** Wallets compared (every wallet row) and those whose balance differs from their ledger sum. */
  readonly wallets: number;
  readonly differences: readonly LedgerDifference[];
}

const fileBytes = (path: string) => (existsSync(path) ? statSync(path).size : 0);

export function fileSize(path: string): FileSize {
  return { db: fileBytes(path), wal: fileBytes(`${path}-wal`) };
}

/** `12.3 MB (db 11.0 + wal 1.3)` */
export function formatSize(size: FileSize | undefined): string {
  if (size === undefined) return 'n/a';
  const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 1);
  return `${mb(size.db + size.wal)} MB (db ${mb(size.db)} + wal ${mb(size.wal)})`;
}

function withReadOnly<T>(path: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 5_000 });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const count = (db: DatabaseSync, table: string) =>
  Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint }).n);

/** Size, then row counts; null when the file is missing or cannot be read. */
export function snapshotStore(path: string): StoreSnapshot | null {
  if (!existsSync(path)) return null;
  const size = fileSize(path);
  try {
    return withReadOnly(path, (db) => ({
      size,
      ledgerRows: count(db, 'ledger'),
      wallets: count(db, 'wallets'),
      accounts: count(db, 'accounts'),
      mediaJobs: count(db, 'media_jobs'),
    }));
  } catch {
    return null;
  }
}

/** Every wallet against the sum of its ledger entries (and ledger sums without a wallet). */
export function checkLedger(path: string): LedgerVerdict {
  return withReadOnly(path, (db) => {
    const rows = db
      .prepare(
        `WITH sums AS MATERIALIZED (SELECT account_id, SUM(amount) AS ledger FROM ledger GROUP BY account_id)
         SELECT w.account_id AS accountId, w.balance AS balance, COALESCE(s.ledger, 0) AS ledger
           FROM wallets w LEFT JOIN sums s ON s.account_id = w.account_id
          WHERE w.balance <> COALESCE(s.ledger, 0)
         UNION ALL
         SELECT s.account_id, 0, s.ledger FROM sums s
          WHERE s.ledger <> 0 AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.account_id = s.account_id)
         ORDER BY 1`,
      )
      .all() as { accountId: string; balance: number | bigint; ledger: number | bigint }[];
    return {
      wallets: count(db, 'wallets'),
      differences: rows.map((r) => ({
        accountId: r.accountId,
        balance: String(r.balance),
        ledger: String(r.ledger),
      })),
    };
  });
}

export function describeVerdict(verdict: LedgerVerdict | undefined): string {
  if (verdict === undefined) return 'not checked';
  const wallets = `${verdict.wallets} wallet${verdict.wallets === 1 ? '' : 's'}`;
  return verdict.differences.length === 0
    ? `consistent (${wallets})`
    : `${verdict.differences.length} of ${wallets} DIFFER`;
}

/**
 * Where a synchronous media job's time goes, from the `media_jobs` rows of delivered jobs (ms
 * timestamps): created (api, after admission) -> completed (worker: pickup, running update,
 * provider, S3 put, completed update) -> last update (api: woken, marks delivered). Medians in ms.
 */
export function jobTimings(path: string): Record<string, number> {
  const rows = withReadOnly(
    path,
    (db) =>
      db
        .prepare(
          "SELECT created_at AS created, completed_at AS completed, updated_at AS updated FROM media_jobs WHERE status = 'delivered'",
        )
        .all() as { created: number | bigint; completed: number | bigint | null; updated: number | bigint }[],
  );
  const completed = (r: (typeof rows)[number]) => (r.completed === null ? Number.NaN : Number(r.completed));
  return {
    delivered: rows.length,
    createdToCompletedMs: median(rows.map((r) => completed(r) - Number(r.created))),
    completedToDeliveredMs: median(rows.map((r) => Number(r.updated) - completed(r))),
  };
}

/** A phase's store when its load ended, and once its apps closed, with the ledger check then. */
export interface StoreAcrossClose {
  readonly atLoadEnd: StoreSnapshot | null;
  readonly afterClose: StoreSnapshot | null;
  /** Every wallet against the sum of its ledger entries, on the closed file (undefined: it failed). */
  readonly ledgerCheck: LedgerVerdict | undefined;
}

/**
 * The file while the apps still run, then `close()` them (queued charges written, WAL
 * checkpointed), then the file again and its ledger check; a check that cannot run is logged.
 */
export async function storeAcrossClose(
  path: string,
  close: () => Promise<void>,
  log: (line: string) => void,
): Promise<StoreAcrossClose> {
  const atLoadEnd = snapshotStore(path);
  await close();
  let ledgerCheck: LedgerVerdict | undefined;
  try {
    ledgerCheck = checkLedger(path);
  } catch (err) {
    log(`ledger check of ${path} failed: ${String(err)}`);
  }
  return { atLoadEnd, afterClose: snapshotStore(path), ledgerCheck };
}
