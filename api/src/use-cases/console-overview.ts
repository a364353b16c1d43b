import type { ApiKeyRecord, ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { addDays, dayOf } from '../../../shared/src/billing/billing-time.ts';
import type { MoneyStore, UsageRecord } from '../../../shared/src/billing/money-store.ts';

export interface ConsoleOverviewDeps {
  readonly billing: Pick<Billing, 'balanceOf' | 'minRequiredMicros'>;
  readonly money: Pick<MoneyStore, 'listUsage' | 'keySpendsOf'>;
  readonly keys: Pick<ApiKeysRepository, 'listByAccount'>;
  readonly timeZone: string;
  readonly clock: () => Date;
}

/** How many keys the overview ranks by this month's spend. */
export const TOP_KEYS = 5;

export interface ConsoleOverview {
  readonly balanceMicros: bigint;
  readonly minRequiredMicros: bigint;
  /** The billing month (`YYYY-MM`) and what the account spent in it so far, every key included. */
  readonly month: string;
  readonly spentThisMonthMicros: bigint;
  /** The days covered by `daily` (inclusive), today last. */
  readonly from: string;
  readonly to: string;
  /** Usage rows (day × model) of those days; days without use have none. */
  readonly daily: UsageRecord[];
  /** The keys (not deleted) that spent most this month, most first; none that spent nothing. */
  readonly topKeys: Array<{ readonly key: ApiKeyRecord; readonly spentMicros: bigint }>;
}

/** The holder's home page: wallet, this month's spend, daily cost by model, top keys. */
export async function consoleOverview(
  deps: ConsoleOverviewDeps,
  input: { accountId: string; days: number },
): Promise<ConsoleOverview> {
  const now = deps.clock();
  const to = dayOf(now, deps.timeZone);
  const from = addDays(to, 1 - input.days);
  const month = to.slice(0, 7);
  const monthStart = `${month}-01`;
  const [balanceMicros, rows, keys] = await Promise.all([
    deps.billing.balanceOf(input.accountId),
    // One read covers both the chart's days and the month so far.
    deps.money.listUsage(input.accountId, from < monthStart ? from : monthStart, to),
    deps.keys.listByAccount(input.accountId),
  ]);
  const spends = await deps.money.keySpendsOf(
    input.accountId,
    keys.map((key) => key.id),
    month,
  );
  const topKeys = keys
    .map((key, index) => ({ key, spentMicros: spends[index]?.spentMicros ?? 0n }))
    .filter((entry) => entry.spentMicros > 0n)
    .sort((a, b) => (a.spentMicros === b.spentMicros ? 0 : a.spentMicros > b.spentMicros ? -1 : 1))
    .slice(0, TOP_KEYS);
  return {
    balanceMicros,
    minRequiredMicros: deps.billing.minRequiredMicros,
    month,
    spentThisMonthMicros: rows
      .filter((row) => row.date >= monthStart)
      .reduce((sum, row) => sum + row.costMicros, 0n),
    from,
    to,
    daily: rows.filter((row) => row.date >= from),
    topKeys,
  };
}
