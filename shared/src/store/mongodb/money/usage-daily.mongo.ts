import type { Db } from 'mongodb';
import { declareIndexes } from '../indexes.ts';
import { type GuardedIncrement, guardedTarget, type PendingMap } from './pending-marker.ts';

/** One account's usage of one model on one billing day, pre-aggregated at settlement. */
export interface UsageDailyDoc {
  _id: string;
  account_id: string;
  date: string;
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: bigint;
  pending?: PendingMap;
}

/** What one charge (or the sum of a batch's charges of one row) adds to its usage row. */
export interface UsageIncrement {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cost: bigint;
}

const COLLECTION = 'usage_daily';

declareIndexes(COLLECTION, [
  // serves: find({ account_id, date: { $gte, $lte } }).sort({ date: 1, model: 1 }) (GET /v1/usage)
  { key: { account_id: 1, date: 1, model: 1 }, name: 'account_date_model' },
]);

/** The id of an account's usage row for a day and model. */
export function usageDailyId(accountId: string, date: string, model: string): string {
  return `${accountId}:${date}:${model}`;
}

/** What charges add to their usage row (guarded by the entries' markers), creating the row. */
export function usageIncrement(
  accountId: string,
  date: string,
  model: string,
  markers: readonly string[],
  usage: UsageIncrement,
): GuardedIncrement<UsageDailyDoc> {
  return {
    id: usageDailyId(accountId, date, model),
    markers,
    inc: {
      requests: usage.requests,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cost: usage.cost,
    },
    onInsert: { account_id: accountId, date, model },
  };
}

/** The `usage_daily` collection: rows upserted with `$inc` per account × day × model. */
export function createUsageDailyRepository(db: Db) {
  const collection = db.collection<UsageDailyDoc>(COLLECTION, { useBigInt64: true });
  return {
    // Guarded increments and marker clears (pending-marker.ts).
    ...guardedTarget(collection),

    /** Rows of the days from `fromDate` to `toDate` (inclusive), by date then model. */
    listRange(accountId: string, fromDate: string, toDate: string): Promise<UsageDailyDoc[]> {
      return collection
        .find({ account_id: accountId, date: { $gte: fromDate, $lte: toDate } })
        .sort({ date: 1, model: 1 })
        .toArray();
    },
  };
}

export type UsageDailyRepository = ReturnType<typeof createUsageDailyRepository>;
