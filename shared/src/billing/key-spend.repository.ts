import type { Db } from 'mongodb';
import { declareIndexes } from '../mongo/indexes.ts';
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
  pending?: PendingMap;
}

/** A key's month spend and the version of the document it was read from. */
export interface KeySpendState {
  readonly spent: bigint;
  readonly version: bigint;
}

const COLLECTION = 'key_spend';

// Every query is by `_id` (`<account_id>:<YYYY-MM>`), which the default index serves.
declareIndexes(COLLECTION, []);

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
  };
}

export type KeySpendRepository = ReturnType<typeof createKeySpendRepository>;
