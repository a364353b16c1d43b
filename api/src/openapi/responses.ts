/**
 * Building blocks of the routes' `schema.response`: documented answers with their media types,
 * headers and the error statuses a route gives. They only document (the OpenAPI document) and let
 * the e2e suites check every answer: documented routes are never serialized through them
 * (openapi.ts). Headers are OpenAPI Header Objects, written as such here.
 */

import { fieldErrorsSchema } from '../schemas/media-response.schema.ts';
import { errorSchema } from '../schemas/model.schema.ts';

/** An OpenAPI Header Object. */
export interface HeaderObject {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: object;
}

const integerText = { type: 'string', pattern: '^[0-9]+$' } as const;

/** `X-Request-Id` of every answer. */
export const requestIdHeader: HeaderObject = {
  description: 'The request’s id (`req_…`), in every answer and in the service’s logs: quote it to support.',
  required: true,
  schema: { type: 'string' },
};

/** The key's rate window, on every answer once the key is authenticated. */
export const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests the key may make per 60-second window.',
    required: true,
    schema: integerText,
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the key’s current window.',
    required: true,
    schema: integerText,
  },
} as const satisfies Record<string, HeaderObject>;

/** `rateLimitHeaders` where an answer may come before the key's window was read. */
const optionalRateLimitHeaders = Object.fromEntries(
  Object.entries(rateLimitHeaders).map(([name, header]) => [name, { ...header, required: false }]),
);

const retryAfter = (required: boolean): HeaderObject => ({
  description: 'Seconds to wait before retrying.',
  required,
  schema: integerText,
});

type HeaderMap = Readonly<Record<string, HeaderObject>>;

/** A JSON answer whose body is `schema`. */
export function jsonResponse(description: string, schema: object, headers: HeaderMap = {}) {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader, ...headers },
    content: { 'application/json': { schema } },
  } as const;
}

/** An answer whose body is bytes of `mediaType` (audio, video). */
export function binaryResponse(description: string, mediaType: string, headers: HeaderMap = {}) {
  return {
    description,
    headers: { 'X-Request-Id': requestIdHeader, ...headers },
    content: { [mediaType]: { schema: { type: 'string', contentMediaType: mediaType } } },
  } as const;
}

/** An answer without a body. */
export function emptyResponse(description: string) {
  return { description, type: 'null', headers: { 'X-Request-Id': requestIdHeader } } as const;
}

/** The error statuses the routes answer, each with what it means wherever it occurs. */
const ERRORS = {
  400: 'The request is malformed (bad JSON, a missing `Host`, …) or a field is invalid: the message names it.',
  401: 'No API key, or one that is unknown, disabled, expired or deleted (`invalid_api_key`).',
  402: '`insufficient_quota`: the wallet is below `min_required`; `spend_limit_reached`: the key’s monthly cap is spent.',
  403: '`ip_not_allowed`: the key may not be used from this address; `model_not_allowed`: nor for this model.',
  404: 'Not found (`model_not_found` for a model that does not exist, is disabled or has no configured provider).',
  408: 'The request body stopped arriving; the connection is closed.',
  409: 'Conflicts with the current state.',
  413: 'The request body is too large.',
  416: 'The requested range lies outside the file (`Content-Range: bytes */<size>`).',
  422: 'A field is invalid (media endpoints: `{message, errors}` instead of the error envelope).',
  429: '`rate_limit_exceeded`: the key’s window is spent, or (operator API) too many wrong operator tokens came from this address (`Retry-After`); `rate_limit_error`: every provider of the model is rate limiting.',
  500: '`internal_error`: the service failed; the message carries the request id.',
  502: '`upstream_error`: no provider of the model gave a usable answer.',
  503: '`upstream_error`: a store of the service is unreachable, or the service is restarting; retry after `Retry-After`.',
  504: '`upstream_timeout`: the provider, or the media job, did not answer in time; nothing is charged.',
} as const;

export type ErrorStatus = keyof typeof ERRORS;

/** The statuses every route can answer: a malformed request (a missing `Host`…), a bug, a store outage or a restart. */
const EVERY_ROUTE = [400, 500, 503] as const satisfies readonly ErrorStatus[];
/** The statuses of admission (key checks 1–7), given by every route that takes a key. */
export const KEYED = [401, 402, 403, 429, ...EVERY_ROUTE] as const satisfies readonly ErrorStatus[];
/** The statuses of reading a request body. */
export const WITH_BODY = [408, 413] as const satisfies readonly ErrorStatus[];
/** The statuses of serving a request through a provider. */
export const UPSTREAM = [404, 502, 504] as const satisfies readonly ErrorStatus[];
/** The statuses of the operator API (its token and the per-address limit of wrong ones, its validation). */
export const OPERATOR = [401, 404, 429, ...EVERY_ROUTE] as const satisfies readonly ErrorStatus[];
/** The statuses of the public, key-less routes. */
export const PUBLIC = EVERY_ROUTE;

/**
 * The error answers of a route: `statuses` with their common meaning, `specific` with the route's
 * own (a description replacing the common one). A route that answers 402 takes a key: its errors
 * but 401 may carry the key's rate-limit headers. 429 and 503 carry `Retry-After` (always on 503).
 */
export function errorResponses(
  statuses: readonly ErrorStatus[],
  specific: Partial<Record<ErrorStatus, string>> = {},
) {
  const keyed = statuses.includes(402);
  const all = [...new Set([...statuses, ...(Object.keys(specific).map(Number) as ErrorStatus[])])];
  return Object.fromEntries(
    all
      .sort((a, b) => a - b)
      .map((status) => {
        const headers: Record<string, HeaderObject> =
          keyed && status !== 401 ? { ...optionalRateLimitHeaders } : {};
        if (status === 429 || status === 503) headers['Retry-After'] = retryAfter(status === 503);
        const body = status === 422 ? fieldErrorsSchema : errorSchema;
        return [status, jsonResponse(specific[status] ?? ERRORS[status], body, headers)];
      }),
  );
}
