import type { Db } from 'mongodb';
import { declareIndexes } from '../mongo/indexes.ts';
import { clearMarkers, type GuardedResult, incrementOnce, type PendingMap } from './pending-marker.ts';

/** What one key spent in one billing month (µIRT), the basis of its monthly cap (check 6). */
export interface KeySpendDoc {
  _id: string;
  key_id: string;
  month: string;
  spent: bigint;
  version: bigint;
  pending?: PendingMap;
}

/** A key's month spend and its version; 0 at version 0 before the first charge of the month. */
export interface KeySpendState {
  readonly spent: bigint;
  readonly version: bigint;
}

const COLLECTION = 'key_spend';

// Every query is by `_id` (`<key_id>:<YYYY-MM>`), which the default index serves.
declareIndexes(COLLECTION, []);

/** The id of a key's spend document for a `YYYY-MM` month. */
export function keySpendId(keyId: string, month: string): string {
  return `${keyId}:${month}`;
}

/** The `key_spend` collection: one document per key and billing month. */
export function createKeySpendRepository(db: Db) {
  const collection = db.collection<KeySpendDoc>(COLLECTION, { useBigInt64: true });
  return {
    async findState(keyId: string, month: string): Promise<KeySpendState> {
      const doc = await collection.findOne({ _id: keySpendId(keyId, month) });
      return { spent: doc?.spent ?? 0n, version: doc?.version ?? 0n };
    },

    /** Adds charges (one, or a batch's of this key and month) once, guarded by their markers. */
    applyEntries(
      keyId: string,
      month: string,
      markers: readonly string[],
      cost: bigint,
    ): Promise<GuardedResult<KeySpendDoc>> {
      return incrementOnce(collection, {
        id: keySpendId(keyId, month),
        markers,
        inc: { spent: cost, version: 1n },
        onInsert: { key_id: keyId, month },
      });
    },

    clearMarkers(keyId: string, month: string, markers: readonly string[]): Promise<void> {
      return clearMarkers(collection, keySpendId(keyId, month), markers);
    },
  };
}

export type KeySpendRepository = ReturnType<typeof createKeySpendRepository>;
