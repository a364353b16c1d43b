/**
 * Keeps the benchmark's throw-away MongoDB-wire store at the size an indexed store behaves like.
 *
 * jongodb (the MongoDB-wire server of these machines) costs O(documents in the collection) per
 * write command (~25 µs a document: 0.4 ms into an empty collection, ~150 ms at 4,000), where
 * MongoDB's B-tree costs O(log n). A load of thousands of requests a second fills the ledger with
 * tens of thousands of entries within a round, and the store, not the gateway, sets the pace. So
 * while a phase runs, this removes the entries that are finished (`open: false`: applied to every
 * target, nothing left for recovery) and, for the media benchmark, delivered image jobs: pass after
 * pass while a pass finds a full page, else after a pause of `intervalMs`. Each write still costs
 * O(entries in flight) (a settlement batch's own entries are in the collection while it is
 * written), which is what an indexed store would not charge either. Nothing the gateway still reads is removed: open entries (pending, being applied,
 * recovery's work) and jobs not yet delivered stay.
 *
 * The money check is kept: every removed entry's amount is added to a running total per account,
 * and `stop()` checks each wallet's balance against removed + remaining applied entries, the
 * same invariant as `ledger:check`. Entries are deleted by the ids just read, which is exact
 * whatever the writers do meanwhile; jongodb matches an `$in` list id by id, so a pass costs
 * O(collection × page) and grows if the pruner falls behind (a range filter on `created_at` was
 * tried and dropped: an entry created before a pass but inserted after it escaped the sums).
 */
import { type Db, MongoClient } from 'mongodb';

export interface PrunerReport {
  readonly prunedEntries: number;
  readonly prunedJobs: number;
  /** Wallets whose balance differs from the sum of their entries, removed ones included. */
  readonly differences: readonly { account: string; balance: string; entries: string }[];
  readonly wallets: number;
}

export interface StorePruner {
  /** Stops pruning, then compares wallets with their entries (removed ones counted); once. */
  stop(): Promise<PrunerReport>;
}

interface EntryRow {
  _id: string;
  account_id: string;
  amount: bigint;
  state: string;
}

/** The most entries one pass removes (the `$in` of one delete). */
const PASS_LIMIT = 2_000;

export async function startStorePruner(
  mongoUrl: string,
  dbName: string,
  options: { intervalMs?: number; mediaJobs?: boolean } = {},
): Promise<StorePruner> {
  const client = new MongoClient(mongoUrl, { maxPoolSize: 2 });
  await client.connect();
  const db = client.db(dbName);
  const removed = new Map<string, bigint>();
  let prunedEntries = 0;
  let prunedJobs = 0;
  let stopped = false;
  let failure: unknown = null;

  /** True when a page was full: more may be waiting. */
  const pass = async () => {
    const entries = await pruneClosedEntries(db, removed);
    prunedEntries += entries;
    const jobs = options.mediaJobs === true ? await pruneDeliveredJobs(db) : 0;
    prunedJobs += jobs;
    return entries === PASS_LIMIT || jobs === PASS_LIMIT;
  };
  const loop = (async () => {
    let more = false;
    while (!stopped) {
      if (!more) await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
      if (stopped) break;
      more = await pass().catch((err: unknown) => {
        failure = err;
        return false;
      });
    }
  })();

  let stopping: Promise<PrunerReport> | null = null;
  const stop = async (): Promise<PrunerReport> => {
    stopped = true;
    await loop;
    try {
      if (failure !== null) throw failure;
      return { prunedEntries, prunedJobs, ...(await compareWallets(db, removed)) };
    } finally {
      await client.close();
    }
  };
  return {
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}

async function pruneClosedEntries(db: Db, removed: Map<string, bigint>): Promise<number> {
  const ledger = db.collection<EntryRow>('ledger', { useBigInt64: true });
  const rows = await ledger.find({ open: false }).limit(PASS_LIMIT).toArray();
  if (rows.length === 0) return 0;
  const result = await ledger.deleteMany({ _id: { $in: rows.map((row) => row._id) }, open: false });
  if (result.deletedCount !== rows.length)
    throw new Error(`pruner: ${rows.length} closed entries read, ${result.deletedCount} deleted`);
  for (const row of rows) removed.set(row.account_id, (removed.get(row.account_id) ?? 0n) + row.amount);
  return rows.length;
}

async function pruneDeliveredJobs(db: Db): Promise<number> {
  const jobs = db.collection<{ _id: string }>('media_jobs');
  const rows = await jobs.find({ kind: 'image', status: 'delivered' }).limit(PASS_LIMIT).toArray();
  if (rows.length === 0) return 0;
  const result = await jobs.deleteMany({ _id: { $in: rows.map((row) => row._id) } });
  return result.deletedCount;
}

async function compareWallets(
  db: Db,
  removed: ReadonlyMap<string, bigint>,
): Promise<Pick<PrunerReport, 'differences' | 'wallets'>> {
  const remaining = new Map<string, bigint>();
  const ledger = db.collection<EntryRow>('ledger', { useBigInt64: true });
  for (const row of await ledger.find({}).toArray()) {
    if (row.state !== 'applied') continue;
    remaining.set(row.account_id, (remaining.get(row.account_id) ?? 0n) + row.amount);
  }
  const wallets = await db
    .collection<{ _id: string; balance: bigint }>('wallets', { useBigInt64: true })
    .find({})
    .toArray();
  const differences: PrunerReport['differences'][number][] = [];
  for (const wallet of wallets) {
    const entries = (removed.get(wallet._id) ?? 0n) + (remaining.get(wallet._id) ?? 0n);
    if (entries !== wallet.balance)
      differences.push({ account: wallet._id, balance: String(wallet.balance), entries: String(entries) });
  }
  return { differences, wallets: wallets.length };
}
