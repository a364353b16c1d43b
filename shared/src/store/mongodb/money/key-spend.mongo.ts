import type { AnyBulkWriteOperation, Db, Filter } from 'mongodb';
import type { KeySpendSummary } from '../../../billing/money-store.ts';
import type { Logger } from '../../../logging/logger.ts';
import { declareIndexes } from '../indexes.ts';
import type { LedgerDoc } from './ledger.mongo.ts';
import { type GuardedIncrement, guardedTarget, markerOf, type PendingMap } from './pending-marker.ts';

/**
 * What the keys of one account spent in one billing month (µIRT), the basis of each key's monthly
 * cap (check 6). One document per account and month rather than per key: a settlement batch then
 * updates one document per account, however many of its keys the batch charged.
 */
export interface KeySpendDoc {
  _id: string;
  account_id: string;
  month: string;
  /** Spend per key, by `keySpendField(keyId)`. */
  keys: Record<string, bigint>;
  /** Grows with every change of any key's spend: a key's value at a higher version is never older. */
  version: bigint;
  /** When each key (same field names as `keys`) was last charged this month. */
  last_used?: Record<string, Date>;
  pending?: PendingMap;
}

/** A charge of a key to note as its last use (`markUsed`). */
export interface KeyUse {
  readonly accountId: string;
  readonly month: string;
  readonly keyId: string;
  readonly at: Date;
}

/** A key's month spend and the version of the document it was read from. */
export interface KeySpendState {
  readonly spent: bigint;
  readonly version: bigint;
}

const COLLECTION = 'key_spend';

declareIndexes(COLLECTION, [
  // serves: find({ account_id }) (summaries(): an account's keys' spend and last use, every month);
  // every other query is by `_id` (`<account_id>:<YYYY-MM>`)
  { key: { account_id: 1 }, name: 'account' },
]);

/** The id of an account's key spend document for a `YYYY-MM` month. */
export function keySpendId(accountId: string, month: string): string {
  return `${accountId}:${month}`;
}

/** The field of a key in `keys` (a key id is a safe field name; anything else becomes a digest). */
export function keySpendField(keyId: string): string {
  return markerOf(keyId);
}

/** A key's spend as found in its account's document (0 at version 0 before the month's first charge). */
export function keySpendOf(doc: KeySpendDoc | null, keyId: string): KeySpendState {
  return { spent: doc?.keys?.[keySpendField(keyId)] ?? 0n, version: doc?.version ?? 0n };
}

/**
 * What charges (one, or a batch's of this account and month) add to the account's key spend,
 * guarded by their markers; `costByKey` is each charged key's sum.
 */
export function keySpendIncrement(
  accountId: string,
  month: string,
  markers: readonly string[],
  costByKey: ReadonlyMap<string, bigint>,
): GuardedIncrement<KeySpendDoc> {
  const inc: Record<string, bigint> = { version: 1n };
  for (const [keyId, cost] of costByKey) inc[`keys.${keySpendField(keyId)}`] = cost;
  return { id: keySpendId(accountId, month), markers, inc, onInsert: { account_id: accountId, month } };
}

/** The `key_spend` collection: one document per account and billing month. */
export function createKeySpendRepository(db: Db) {
  const collection = db.collection<KeySpendDoc>(COLLECTION, { useBigInt64: true });
  return {
    async findState(accountId: string, keyId: string, month: string): Promise<KeySpendState> {
      return keySpendOf(await collection.findOne({ _id: keySpendId(accountId, month) }), keyId);
    },

    // Guarded increments and marker clears (pending-marker.ts).
    ...guardedTarget(collection),

    /**
     * Notes charges as their keys' last use, in one unordered bulk: a time is set only when later
     * than the one there (a conditional `$set`, as `$max` is missing from the MongoDB-wire server of
     * the tests), so writes arriving out of order keep the newest. Repeatable.
     */
    async markUsed(uses: readonly KeyUse[]): Promise<void> {
      const newest = new Map<string, KeyUse>();
      for (const use of uses) {
        const id = `${keySpendId(use.accountId, use.month)} ${use.keyId}`;
        const known = newest.get(id);
        if (known === undefined || known.at < use.at) newest.set(id, use);
      }
      if (newest.size === 0) return;
      const operations = [...newest.values()].map((use): AnyBulkWriteOperation<KeySpendDoc> => {
        const field = `last_used.${keySpendField(use.keyId)}`;
        const filter = {
          _id: keySpendId(use.accountId, use.month),
          $or: [{ [field]: { $exists: false } }, { [field]: { $lt: use.at } }],
        } as Filter<KeySpendDoc>;
        return { updateOne: { filter, update: { $set: { [field]: use.at } } } };
      });
      await collection.bulkWrite(operations, { ordered: false });
    },

    /** For each key named: its spend in `month` and its newest charge over every month. */
    async summaries(accountId: string, keyIds: readonly string[], month: string): Promise<KeySpendSummary[]> {
      const docs = await collection
        .find({ account_id: accountId }, { projection: { month: 1, keys: 1, last_used: 1 } })
        .toArray();
      return keyIds.map((keyId) => {
        const field = keySpendField(keyId);
        let lastUsedAt: Date | null = null;
        for (const doc of docs) {
          const at = doc.last_used?.[field];
          if (at !== undefined && (lastUsedAt === null || at > lastUsedAt)) lastUsedAt = at;
        }
        const spentMicros = docs.find((doc) => doc.month === month)?.keys?.[field] ?? 0n;
        return { keyId, spentMicros: BigInt(spentMicros), lastUsedAt };
      });
    },
  };
}

export type KeySpendRepository = ReturnType<typeof createKeySpendRepository>;

/**
 * Notes counted charges as their keys' last use (the console shows it). Not money: a failure is
 * logged and leaves an older time shown, never a wrong balance.
 */
export async function noteKeyUses(
  keySpend: KeySpendRepository,
  entries: readonly LedgerDoc[],
  logger: Logger,
): Promise<void> {
  const uses = entries.flatMap((entry) =>
    entry.kind === 'charge' && entry.key_id !== null
      ? [{ accountId: entry.account_id, month: entry.month, keyId: entry.key_id, at: entry.created_at }]
      : [],
  );
  if (uses.length === 0) return;
  try {
    await keySpend.markUsed(uses);
  } catch (err) {
    logger.warn({ err, keys: uses.length }, 'settlement: last use of keys not noted');
  }
}
