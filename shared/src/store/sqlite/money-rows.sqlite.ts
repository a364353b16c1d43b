import type { SQLOutputValue } from 'node:sqlite';
import type {
  KeySpendState,
  KeySpendSummary,
  LedgerDifference,
  LedgerEntry,
  LedgerKind,
  UsageRecord,
  WalletState,
} from '../../billing/money-store.ts';

/**
 * Rows of the money tables as read with `setReadBigInts(true)`: every INTEGER arrives as a bigint,
 * so amounts beyond 2^53 stay exact; counts and times are turned back into numbers here.
 */
export type Row = Record<string, SQLOutputValue>;

/** The ledger's columns in the order `ledgerParams` binds them. */
export const LEDGER_COLUMNS =
  'id, account_id, key_id, kind, amount, model, requests, input_tokens, output_tokens, day, month, reference, created_at';

/** The parameters of one ledger row, in the order of `LEDGER_COLUMNS`. */
export function ledgerParams(entry: LedgerEntry): (string | number | bigint | null)[] {
  return [
    entry.id,
    entry.accountId,
    entry.keyId,
    entry.kind,
    entry.amountMicros,
    entry.model,
    entry.usage?.requests ?? null,
    entry.usage?.inputTokens ?? null,
    entry.usage?.outputTokens ?? null,
    entry.day,
    entry.month,
    entry.reference,
    entry.createdAt.getTime(),
  ];
}

/** A ledger row as an entry; SQLite counts in one transaction, so every stored entry is applied. */
export function toLedgerEntry(row: Row): LedgerEntry {
  const requests = row.requests;
  return {
    id: text(row.id),
    accountId: text(row.account_id),
    keyId: optionalText(row.key_id),
    kind: text(row.kind) as LedgerKind,
    amountMicros: integer(row.amount),
    model: optionalText(row.model),
    usage:
      requests === null || requests === undefined
        ? null
        : {
            requests: count(requests),
            inputTokens: count(row.input_tokens),
            outputTokens: count(row.output_tokens),
          },
    day: text(row.day),
    month: text(row.month),
    state: 'applied',
    reference: optionalText(row.reference),
    createdAt: new Date(count(row.created_at)),
  };
}

/** A wallet row's state; no row is 0 at version 0. */
export function toWalletState(row: Row | undefined): WalletState {
  return row === undefined
    ? { balance: 0n, version: 0n }
    : { balance: integer(row.balance), version: integer(row.version) };
}

/** A key month spend row's state; no row is 0 at version 0. */
export function toKeySpendState(row: Row | undefined): KeySpendState {
  return row === undefined
    ? { spent: 0n, version: 0n }
    : { spent: integer(row.spent), version: integer(row.version) };
}

/** A key's month spend and last use, as `keySpends` reads them. */
export function toKeySpendSummary(row: Row): KeySpendSummary {
  const lastUsedAt = row.last_used_at;
  return {
    keyId: text(row.key_id),
    spentMicros: integer(row.spent),
    lastUsedAt: lastUsedAt === null || lastUsedAt === undefined ? null : new Date(count(lastUsedAt)),
  };
}

export function toUsageRecord(row: Row): UsageRecord {
  return {
    date: text(row.date),
    model: text(row.model),
    requests: count(row.requests),
    inputTokens: count(row.input_tokens),
    outputTokens: count(row.output_tokens),
    costMicros: integer(row.cost),
  };
}

export function toLedgerDifference(row: Row): LedgerDifference {
  return {
    accountId: text(row.account_id),
    balanceMicros: integer(row.balance),
    ledgerMicros: integer(row.ledger),
  };
}

function text(value: SQLOutputValue | undefined): string {
  if (typeof value !== 'string') throw new TypeError(`expected TEXT, read ${typeof value}`);
  return value;
}

function optionalText(value: SQLOutputValue | undefined): string | null {
  return value === null || value === undefined ? null : text(value);
}

function integer(value: SQLOutputValue | undefined): bigint {
  if (typeof value !== 'bigint') throw new TypeError(`expected INTEGER, read ${typeof value}`);
  return value;
}

/** Token counts, requests and millisecond times stay far below 2^53. */
function count(value: SQLOutputValue | undefined): number {
  return Number(integer(value));
}
