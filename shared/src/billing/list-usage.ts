import type { BillingDeps } from './billing-deps.ts';
import { addDays, dayOf } from './billing-time.ts';
import { microsToIrt } from './money.ts';
import type { UsageRecord } from './money-store.ts';

/** One row of the spec's UsageList. */
export interface UsageRow {
  readonly date: string;
  readonly model: string;
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  /** Toman. */
  readonly cost: number;
}

/**
 * The usage rows of the last `days` billing days (today included, in the billing zone), by date
 * then model. Rows are pre-aggregated at settlement, so this reads at most days × models rows.
 */
export async function listUsage(
  deps: BillingDeps,
  accountId: string,
  days: number,
  now?: Date,
): Promise<UsageRow[]> {
  if (!Number.isInteger(days) || days < 1) throw new RangeError('days must be a whole number ≥ 1');
  const today = dayOf(now ?? deps.clock(), deps.settings.timeZone);
  const rows = await deps.store.listUsage(accountId, addDays(today, 1 - days), today);
  return rows.map(toUsageRow);
}

/** A stored usage row as the spec's UsageList shows it (cost in Toman). */
export function toUsageRow(row: UsageRecord): UsageRow {
  return {
    date: row.date,
    model: row.model,
    requests: row.requests,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cost: microsToIrt(row.costMicros),
  };
}
