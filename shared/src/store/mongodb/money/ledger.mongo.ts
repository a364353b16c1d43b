import { type Collection, type Db, type Filter, MongoBulkWriteError } from 'mongodb';
import type { LedgerEntry, LedgerKind, LedgerQuery, LedgerState } from '../../../billing/money-store.ts';
import { declareIndexes } from '../indexes.ts';
import { isDuplicateKey } from './pending-marker.ts';

/** Token counts of a charge as stored on its ledger entry. */
export interface LedgerUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
}

/** One movement of money; `_id` is its idempotency key (request id, job id, top-up id). */
export interface LedgerDoc {
  _id: string;
  account_id: string;
  key_id: string | null;
  kind: LedgerKind;
  /** µIRT, signed: charges are negative. */
  amount: bigint;
  model: string | null;
  usage: LedgerUsage | null;
  /** Billing day and month (zone of the configuration) the entry counts in. */
  day: string;
  month: string;
  state: LedgerState;
  /** True until the entry's markers are cleared from its targets; what recovery scans. */
  open: boolean;
  /** Until when the process that inserted or claimed the entry may still be applying it. */
  lease_until: Date;
  created_at: Date;
  reference: string | null;
}

const COLLECTION = 'ledger';

declareIndexes(COLLECTION, [
  // serves: find({ account_id }).sort({ created_at: -1, _id: -1 }).limit(n) (admin ledger listing)
  // and find({ account_id, state }) (ledger check of one account)
  { key: { account_id: 1, created_at: -1, _id: -1 }, name: 'account_created' },
  // serves: find({ open: true, created_at: { $lt } }).sort({ created_at: 1 }) (recovery)
  { key: { open: 1, created_at: 1 }, name: 'open_created' },
  // serves: find({ state: 'applied' }) and find({ state: 'pending' }) (ledger check)
  { key: { state: 1, account_id: 1 }, name: 'state_account' },
]);

/** The domain view of a stored entry. */
export function toLedgerEntry(doc: LedgerDoc): LedgerEntry {
  return {
    id: doc._id,
    accountId: doc.account_id,
    keyId: doc.key_id,
    kind: doc.kind,
    amountMicros: doc.amount,
    model: doc.model,
    usage:
      doc.usage === null
        ? null
        : {
            requests: doc.usage.requests,
            inputTokens: doc.usage.input_tokens,
            outputTokens: doc.usage.output_tokens,
          },
    day: doc.day,
    month: doc.month,
    state: doc.state,
    reference: doc.reference,
    createdAt: doc.created_at,
  };
}

/** The `ledger` collection: one entry per charge or top-up, unique by its idempotency key. */
export function createLedgerRepository(db: Db) {
  const collection = db.collection<LedgerDoc>(COLLECTION, { useBigInt64: true });
  return {
    /** Records a new entry as pending; false when an entry with this id exists already. */
    async insertPending(doc: LedgerDoc): Promise<boolean> {
      try {
        await collection.insertOne(doc);
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    /**
     * Records entries as pending in one unordered insert (a settlement batch; ids distinct); returns
     * the ids that existed already and were not inserted. Every other entry was inserted.
     */
    insertManyPending(docs: readonly LedgerDoc[]): Promise<Set<string>> {
      return insertNewOnes(collection, docs);
    },

    findById(id: string): Promise<LedgerDoc | null> {
      return collection.findOne({ _id: id });
    },

    /** Takes over a pending entry whose lease ran out; null when it is applied or leased. */
    claim(id: string, now: Date, leaseUntil: Date): Promise<LedgerDoc | null> {
      return collection.findOneAndUpdate(
        { _id: id, state: 'pending', lease_until: { $lt: now } },
        { $set: { lease_until: leaseUntil } },
        { returnDocument: 'after' },
      );
    },

    async markApplied(id: string): Promise<void> {
      await collection.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'applied' } });
    },

    /** `markApplied` of many entries in one update. */
    async markManyApplied(ids: readonly string[]): Promise<void> {
      await collection.updateMany(
        { _id: { $in: [...ids] }, state: 'pending' },
        { $set: { state: 'applied' } },
      );
    },

    /** `close` of many entries in one update. */
    async closeMany(ids: readonly string[]): Promise<void> {
      await collection.updateMany({ _id: { $in: [...ids] }, state: 'applied' }, { $set: { open: false } });
    },

    /** Ends an applied entry's life cycle once no target carries its marker any more. */
    async close(id: string): Promise<void> {
      await collection.updateOne({ _id: id, state: 'applied' }, { $set: { open: false } });
    },

    /** Entries not yet closed, created before `cutoff`, oldest first. */
    findOpen(cutoff: Date): AsyncIterable<LedgerDoc> {
      return collection.find({ open: true, created_at: { $lt: cutoff } }).sort({ created_at: 1 });
    },

    /** An account's newest entries first, a page at a time. */
    listByAccount(accountId: string, query: LedgerQuery): Promise<LedgerDoc[]> {
      const filter: Filter<LedgerDoc> = { account_id: accountId };
      if (query.kind !== undefined) filter.kind = query.kind;
      const { before } = query;
      if (before !== undefined) {
        filter.$or = [
          { created_at: { $lt: before.createdAt } },
          { created_at: before.createdAt, _id: { $lt: before.id } },
        ];
      }
      return collection.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray();
    },

    /** Σ amount of the applied entries, per account (all accounts, or the one given). */
    async sumApplied(accountId?: string): Promise<Map<string, bigint>> {
      const filter =
        accountId === undefined
          ? { state: 'applied' as const }
          : { account_id: accountId, state: 'applied' as const };
      const totals = new Map<string, bigint>();
      // Summed here in bigint, not with $group/$sum: jongodb adds Int64 values as doubles past 2^53.
      const entries = collection.find(filter, { projection: { account_id: 1, amount: 1 } });
      for await (const entry of entries) {
        totals.set(entry.account_id, (totals.get(entry.account_id) ?? 0n) + BigInt(entry.amount));
      }
      return totals;
    },

    /** Pending entries (all accounts, or the one given): few, as each lives only while applied. */
    findPending(accountId?: string): Promise<LedgerDoc[]> {
      const filter =
        accountId === undefined
          ? { state: 'pending' as const }
          : { account_id: accountId, state: 'pending' as const };
      return collection.find(filter).toArray();
    },
  };
}

export type LedgerRepository = ReturnType<typeof createLedgerRepository>;

// A duplicate is taken out and the rest inserted again; more rounds mean ids keep appearing.
const INSERT_ROUNDS = 3;

async function insertNewOnes(collection: Collection<LedgerDoc>, docs: readonly LedgerDoc[]) {
  const existing = new Set<string>();
  let rest = docs;
  for (let round = 1; rest.length > 0; round++) {
    const refused = await insertUnordered(collection, rest);
    if (refused !== 'all') {
      for (const id of refused) existing.add(id);
      return existing;
    }
    // The server refused the whole insert over a duplicate without naming it (MongoDB names each
    // one; the MongoDB-wire server of the contract tests does not): look the batch's ids up and insert the others again.
    const ids = rest.map((doc) => doc._id);
    const found = await collection.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
    if (found.length === 0) throw new Error('ledger batch insert refused over a duplicate it does not hold');
    if (round === INSERT_ROUNDS) throw new Error('ledger batch insert keeps meeting new duplicates');
    for (const doc of found) existing.add(doc._id);
    rest = rest.filter((doc) => !existing.has(doc._id));
  }
  return existing;
}

/** The ids refused as duplicates (all others inserted), or 'all' when nothing was inserted. */
async function insertUnordered(
  collection: Collection<LedgerDoc>,
  docs: readonly LedgerDoc[],
): Promise<string[] | 'all'> {
  try {
    await collection.insertMany([...docs], { ordered: false });
    return [];
  } catch (error) {
    const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
    if (writeErrors.length > 0 && writeErrors.every(isDuplicateKey)) {
      return writeErrors.map((writeError) => docs[writeError.index]?._id ?? '');
    }
    if (writeErrors.length === 0 && isDuplicateKey(error)) return 'all';
    throw error;
  }
}
