import type { Db } from 'mongodb';
import { declareIndexes } from '../indexes.ts';
import { type GuardedIncrement, guardedTarget, type PendingMap } from './pending-marker.ts';

/** An account's API wallet: balance in µIRT, bumped `version` on every change, entry markers. */
export interface WalletDoc {
  _id: string;
  balance: bigint;
  version: bigint;
  pending?: PendingMap;
}

/** Balance and version of a wallet; an account without a wallet document has 0 at version 0. */
export interface WalletState {
  readonly balance: bigint;
  readonly version: bigint;
}

const COLLECTION = 'wallets';

// Every query is by `_id` (the account id); the recovery scan goes through the ledger.
declareIndexes(COLLECTION, []);

/**
 * What ledger entries add to an account's wallet (one entry, or the sum of a settlement batch's
 * entries of this account), creating it when missing.
 */
export function walletIncrement(
  accountId: string,
  markers: readonly string[],
  amount: bigint,
): GuardedIncrement<WalletDoc> {
  return { id: accountId, markers, inc: { balance: amount, version: 1n } };
}

/** The `wallets` collection: balances changed only through ledger entries (guarded increments). */
export function createWalletsRepository(db: Db) {
  const collection = db.collection<WalletDoc>(COLLECTION, { useBigInt64: true });
  return {
    async findState(accountId: string): Promise<WalletState> {
      const doc = await collection.findOne({ _id: accountId });
      return { balance: doc?.balance ?? 0n, version: doc?.version ?? 0n };
    },

    async findById(accountId: string): Promise<WalletDoc | null> {
      return collection.findOne({ _id: accountId });
    },

    // Guarded increments and marker clears (pending-marker.ts).
    ...guardedTarget(collection),

    /** Every wallet, for the ledger check. */
    all(): AsyncIterable<WalletDoc> {
      return collection.find({}).sort({ _id: 1 });
    },
  };
}

export type WalletsRepository = ReturnType<typeof createWalletsRepository>;
