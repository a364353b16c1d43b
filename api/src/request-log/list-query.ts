import { errors } from '../../../shared/src/errors/app-error.ts';
import type { RequestLogQuery, StatusFilter } from '../../../shared/src/request-log/request-log-store.ts';

/** The filters of a request log page as the query string carries them (all text). */
export type RequestListParams = Partial<
  Record<'account_id' | 'key_id' | 'model' | 'status' | 'from' | 'to' | 'limit' | 'cursor', string>
>;

export const LIST_FILTERS = [
  'account_id',
  'key_id',
  'model',
  'status',
  'from',
  'to',
  'limit',
  'cursor',
] as const;
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/**
 * The store query of a page's filters; 400 in the spec's envelope for an unknown filter, a filter
 * given twice, a limit outside 1–200, a date that is neither Unix seconds nor ISO 8601, `from`
 * after `to`, or a status that is no status. (The cursor is checked by the store.)
 */
export function parseRequestListQuery(
  raw: unknown,
  allowed: readonly string[] = LIST_FILTERS,
): RequestLogQuery {
  const params = (raw ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (!allowed.includes(name)) throw errors.invalidRequest(`Unknown filter \`${name}\`.`);
    if (typeof value !== 'string') throw errors.invalidRequest(`The filter \`${name}\` may be given once.`);
  }
  const p = params as RequestListParams;
  const limit = p.limit === undefined ? DEFAULT_LIMIT : Number(p.limit);
  if (p.limit !== undefined && !/^[0-9]{1,4}$/.test(p.limit)) throw limitError();
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw limitError();
  const fromMs = p.from === undefined ? undefined : instantMs('from', p.from);
  const toMs = p.to === undefined ? undefined : instantMs('to', p.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs > toMs)
    throw errors.invalidRequest('`from` is after `to`.');
  return {
    accountId: nonEmpty('account_id', p.account_id),
    keyId: nonEmpty('key_id', p.key_id),
    model: nonEmpty('model', p.model),
    status: p.status === undefined ? undefined : statusFilter(p.status),
    fromMs,
    // `to` is inclusive, to its whole second.
    beforeMs: toMs === undefined ? undefined : toMs + 1000,
    limit,
    cursor: p.cursor === undefined ? undefined : nonEmpty('cursor', p.cursor),
  };
}

function limitError() {
  return errors.invalidRequest(`\`limit\` must be an integer from 1 to ${MAX_LIMIT}.`);
}

function nonEmpty(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > 200)
    throw errors.invalidRequest(`\`${name}\` must be 1 to 200 characters.`);
  return value;
}

/** Unix seconds, or an ISO 8601 date-time (a date alone: its midnight UTC), as whole-second milliseconds. */
function instantMs(name: string, value: string): number {
  let ms: number;
  if (/^[0-9]{1,12}$/.test(value)) ms = Number(value) * 1000;
  else if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value))
    ms = Date.parse(value);
  else ms = Number.NaN;
  if (!Number.isFinite(ms) || ms < 0 || ms > 253_402_300_799_000)
    throw errors.invalidRequest(`\`${name}\` must be Unix seconds or an ISO 8601 date-time.`);
  return Math.floor(ms / 1000) * 1000;
}

function statusFilter(value: string): StatusFilter {
  if (value === 'ok' || value === 'error') return { kind: value };
  if (/^[1-5][0-9]{2}$/.test(value)) return { kind: 'http', status: Number(value) };
  if (/^[a-z][a-z0-9_]{0,63}$/.test(value)) return { kind: 'code', code: value };
  throw errors.invalidRequest('`status` must be `ok`, `error`, an HTTP status or an error code.');
}
