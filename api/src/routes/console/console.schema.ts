import type { AccountRecord } from '../../../../shared/src/accounts/accounts.repository.ts';
import { countsTowardLimit } from '../../../../shared/src/accounts/key-slots.ts';
import { dayOf } from '../../../../shared/src/billing/billing-time.ts';
import { toUsageRow } from '../../../../shared/src/billing/list-usage.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import type { ConsoleSession } from '../../console/session-store.ts';
import { ledgerEntryWithUsageSchema } from '../../schemas/ledger-entry.schema.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import { usageRowSchema } from '../../schemas/usage-row.schema.ts';
import type { KeyWithUse } from '../../use-cases/list-keys-with-use.ts';
import type { UsageReport } from '../../use-cases/usage-report.ts';
import { keySchema, toKeyView } from '../admin/admin.schema.ts';

/** Errors any console route may answer besides its own (401 no session, 403 CSRF, 404, 400). */
export const consoleErrorResponses = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
  429: errorSchema,
} as const;

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** An account as its holder sees it in the session. */
export const sessionAccountSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'name', 'status', 'created_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'inactive'] },
    created_at: dateTime,
  },
} as const;

/** The billing calendar: its zone, and the day it is there now (the console's ranges end there). */
export const billingCalendarSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['time_zone', 'today'],
  properties: {
    time_zone: { type: 'string' },
    today: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  },
} as const;

export const sessionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['role', 'csrf_token', 'billing'],
  properties: {
    role: { type: 'string', enum: ['holder', 'operator'] },
    account: sessionAccountSchema,
    csrf_token: { type: 'string' },
    billing: billingCalendarSchema,
  },
} as const;

/** `{time_zone, today}`: billing days are days of `BILLING_TIME_ZONE`, not of the browser's zone. */
export function toBillingCalendarView(timeZone: string, now: Date) {
  return { time_zone: timeZone, today: dayOf(now, timeZone) };
}

export function toSessionAccountView(account: AccountRecord) {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    status: account.status,
    created_at: account.createdAt.toISOString(),
  };
}

/** `{role, account?, csrf_token, billing}`: what sign-in and `GET /session` answer. */
export function toSessionView(
  session: ConsoleSession,
  account: AccountRecord | null,
  billing: ReturnType<typeof toBillingCalendarView>,
) {
  return {
    role: session.role,
    ...(account === null ? {} : { account: toSessionAccountView(account) }),
    csrf_token: session.csrfToken,
    billing,
  };
}

/** A key with this month's spend (Toman) and last use. */
export const keyWithUseSchema = {
  type: 'object',
  required: [...keySchema.required, 'spent_this_month', 'last_used_at', 'console_playground'],
  properties: {
    ...keySchema.properties,
    spent_this_month: { type: 'number' },
    last_used_at: nullableDateTime,
    /** Made by the console for a session's playground: holds no place among the 25 active keys. */
    console_playground: { type: 'boolean' },
  },
} as const;

export const keyWithUseListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: keyWithUseSchema },
  },
} as const;

export function toKeyWithUseView({ key, spentThisMonthMicros, lastUsedAt }: KeyWithUse, now: Date) {
  return {
    ...toKeyView(key, now),
    spent_this_month: microsToIrt(spentThisMonthMicros),
    last_used_at: lastUsedAt?.toISOString() ?? null,
    // Every other key that counts toward the limit holds a slot (key-slots.ts); a playground key
    // counts while active but holds none.
    console_playground: key.slot === null && countsTowardLimit(key, now),
  };
}

export const usageReportSchema = {
  type: 'object',
  required: ['object', 'currency', 'from', 'to', 'data', 'totals'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    currency: { type: 'string', enum: ['IRT'] },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    data: { type: 'array', items: usageRowSchema },
    totals: {
      type: 'object',
      required: ['requests', 'input_tokens', 'output_tokens', 'cost'],
      properties: {
        requests: { type: 'integer' },
        input_tokens: { type: 'integer' },
        output_tokens: { type: 'integer' },
        cost: { type: 'number' },
      },
    },
  },
} as const;

export function toUsageReportView(report: UsageReport) {
  return {
    object: 'list',
    currency: 'IRT',
    from: report.from,
    to: report.to,
    data: report.rows.map(toUsageRow),
    totals: {
      requests: report.totals.requests,
      input_tokens: report.totals.inputTokens,
      output_tokens: report.totals.outputTokens,
      cost: microsToIrt(report.totals.costMicros),
    },
  };
}

/** `?from=&to=&model=&format=` of a usage report (days are checked by the use case). */
export const usageQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', maxLength: 10 },
    to: { type: 'string', maxLength: 10 },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    format: { type: 'string', enum: ['json', 'csv'] },
  },
} as const;

export interface UsageQuery {
  from?: string;
  to?: string;
  model?: string;
  format?: 'json' | 'csv';
}

export const ledgerPageSchema = {
  type: 'object',
  required: ['object', 'data', 'next'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: ledgerEntryWithUsageSchema },
    next: { type: ['string', 'null'] },
  },
} as const;

/** `?limit=&before=` of a ledger page. */
export const ledgerQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    before: { type: 'string', minLength: 1, maxLength: 400 },
  },
} as const;

export interface LedgerQuery {
  limit: number;
  before?: string;
}
