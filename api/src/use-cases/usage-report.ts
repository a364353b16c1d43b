import { addDays, dayOf } from '../../../shared/src/billing/billing-time.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { MoneyStore, UsageRecord } from '../../../shared/src/billing/money-store.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';

export interface UsageReportDeps {
  readonly money: Pick<MoneyStore, 'listUsage'>;
  readonly timeZone: string;
  readonly clock: () => Date;
}

export interface UsageReportInput {
  readonly accountId: string;
  /** `YYYY-MM-DD` billing days, inclusive; default the 30 days ending today. */
  readonly from?: string;
  readonly to?: string;
  /** Only this model's rows (its exact id). */
  readonly model?: string;
}

export interface UsageReport {
  readonly from: string;
  readonly to: string;
  /** Day × model rows, by date then model. */
  readonly rows: UsageRecord[];
  readonly totals: Omit<UsageRecord, 'date' | 'model'>;
}

/** The longest range a report covers (a year, leap years included). */
export const MAX_REPORT_DAYS = 366;
const DEFAULT_DAYS = 30;

/**
 * An account's usage rows over a range of billing days, with their totals. 400 for a day that is
 * not a calendar date, `from` after `to`, or a range longer than 366 days.
 */
export async function usageReport(deps: UsageReportDeps, input: UsageReportInput): Promise<UsageReport> {
  if (input.from !== undefined) checkDay('from', input.from);
  if (input.to !== undefined) checkDay('to', input.to);
  const today = dayOf(deps.clock(), deps.timeZone);
  // Only `from`: the 30 days it starts (never past today); only `to`: the 30 days it ends.
  const to =
    input.to ?? (input.from === undefined ? today : minDay(addDays(input.from, DEFAULT_DAYS - 1), today));
  const from = input.from ?? addDays(to, 1 - DEFAULT_DAYS);
  if (from > to) throw errors.invalidRequest('Invalid query `from`: must not be after `to`.');
  if (addDays(from, MAX_REPORT_DAYS - 1) < to) {
    throw errors.invalidRequest(`Invalid query \`to\`: a report covers at most ${MAX_REPORT_DAYS} days.`);
  }
  const all = await deps.money.listUsage(input.accountId, from, to);
  const rows = input.model === undefined ? all : all.filter((row) => row.model === input.model);
  const totals = { requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0n };
  for (const row of rows) {
    totals.requests += row.requests;
    totals.inputTokens += row.inputTokens;
    totals.outputTokens += row.outputTokens;
    totals.costMicros += row.costMicros;
  }
  return { from, to, rows, totals };
}

/** The report as CSV (RFC 4180, CRLF line ends): one header line, then one line per row; cost in Toman. */
export function usageCsv(report: UsageReport): string {
  const lines = [['date', 'model', 'requests', 'input_tokens', 'output_tokens', 'cost_irt']];
  for (const row of report.rows) {
    lines.push([
      row.date,
      row.model,
      String(row.requests),
      String(row.inputTokens),
      String(row.outputTokens),
      String(microsToIrt(row.costMicros)),
    ]);
  }
  return `${lines.map((fields) => fields.map(csvField).join(',')).join('\r\n')}\r\n`;
}

function csvField(value: string): string {
  // A leading =, +, - or @ would make a spreadsheet run the cell as a formula.
  const safe = /^[=+\-@]/.test(value) && Number.isNaN(Number(value)) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

function checkDay(field: 'from' | 'to', day: string): void {
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(day) && addDays(day, 0) === day;
  if (!valid) throw errors.invalidRequest(`Invalid query \`${field}\`: must be a date YYYY-MM-DD.`);
}
