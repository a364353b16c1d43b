/** The general classes of the spec's error format (`error.type`). */
export type ErrorType =
  | 'invalid_request_error'
  | 'invalid_api_key'
  | 'insufficient_quota'
  | 'spend_limit_reached'
  | 'ip_not_allowed'
  | 'permission_error'
  | 'rate_limit_exceeded'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'server_error';

/** The body every service error is sent with (spec, section Errors). */
export interface ErrorBody {
  error: { message: string; type: ErrorType; code: string | number; param: null };
}

/**
 * An error the service means to answer with: an HTTP status and the spec's type and code.
 * Anything thrown that is not an AppError is a bug and answers a generic 500.
 */
export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | number;
  /** Extra response headers, for example `Retry-After` on 429. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    type: ErrorType,
    code: string | number,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: null } };
  }
}

/** Constructors for the errors the spec lists, so each is spelled in one place. */
export const errors = {
  invalidRequest: (message: string) =>
    new AppError(400, 'invalid_request_error', 'invalid_request_error', message),
  modelRequired: () =>
    new AppError(400, 'invalid_request_error', 'model_required', 'The field `model` is required.'),
  modelNotFound: (model: string) =>
    new AppError(404, 'invalid_request_error', 'model_not_found', `The model \`${model}\` does not exist.`),
  invalidApiKey: () =>
    new AppError(
      401,
      'invalid_api_key',
      'invalid_api_key',
      'Invalid API key: send a valid, active key starting with hk-.',
    ),
  ipNotAllowed: () =>
    new AppError(
      403,
      'ip_not_allowed',
      'ip_not_allowed',
      'This API key may not be used from your IP address.',
    ),
  rateLimitExceeded: (retryAfterSeconds: number) =>
    new AppError(
      429,
      'rate_limit_exceeded',
      'rate_limit_exceeded',
      `Rate limit reached for this API key; retry after ${retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  insufficientQuota: () =>
    new AppError(
      402,
      'insufficient_quota',
      'insufficient_quota',
      'Your API wallet balance is below the minimum required balance; top up to continue.',
    ),
  spendLimitReached: () =>
    new AppError(
      402,
      'spend_limit_reached',
      'spend_limit_reached',
      'This API key has reached its monthly spend cap; raise the cap or wait for next month.',
    ),
  modelNotAllowed: (model: string) =>
    new AppError(
      403,
      'permission_error',
      'model_not_allowed',
      `This API key may not use the model \`${model}\`.`,
    ),
  /** Native APIs only: the path names a provider the gateway does not serve natively, or not enabled. */
  providerNotFound: (provider: string) =>
    new AppError(
      404,
      'invalid_request_error',
      'provider_not_found',
      `The provider \`${provider}\` is not available through a native API here.`,
    ),
  /** Native APIs only: a path of a served provider that the gateway does not forward. */
  endpointNotSupported: (method: string, path: string) =>
    new AppError(
      404,
      'invalid_request_error',
      'endpoint_not_supported',
      `The endpoint ${method} ${path} is not supported by this gateway's native API.`,
    ),
  /** Every route of the model answered 429 (after all alternative routes were tried). */
  upstreamRateLimited: () =>
    new AppError(
      429,
      'rate_limit_error',
      'rate_limit_error',
      'The providers of this model are rate limiting; retry with backoff.',
    ),
  /** Native APIs only: every upstream route of the model failed (none is healthy now). */
  noHealthyRoute: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'upstream_error',
      'upstream_error',
      'No upstream route of this model is healthy right now; retry with backoff.',
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, 'invalid_request_error', 'invalid_request_error', `Unknown route: ${method} ${url}`),
  payloadTooLarge: (message: string) =>
    new AppError(413, 'invalid_request_error', 'invalid_request_error', message),
  /**
   * A store the request needs (Redis, the durable store, S3) does not answer. The spec has no code
   * for this: it is the spec's retryable 503 `upstream_error` ("temporarily unavailable, retry with
   * backoff"), with `Retry-After` so clients wait instead of hammering a recovering store.
   */
  storeUnavailable: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'upstream_error',
      'upstream_error',
      `The service is temporarily unavailable; retry after ${retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  /** The server is closing (a deploy or restart): other replicas, or this one restarted, will answer. */
  shuttingDown: () =>
    new AppError(503, 'upstream_error', 'upstream_error', 'The service is restarting; retry shortly.', {
      headers: { 'retry-after': '1', connection: 'close' },
    }),
  /** The request body stopped arriving (`BODY_READ_TIMEOUT_MS`); the connection is closed after it. */
  bodyReadTimeout: (timeoutMs: number) =>
    new AppError(
      408,
      'invalid_request_error',
      'invalid_request_error',
      `The request body stopped arriving: no data for ${formatSeconds(timeoutMs)}.`,
      { headers: { connection: 'close' } },
    ),
  /**
   * The client closed its connection before the answer was ready (nginx's 499): nobody reads this
   * answer; it makes the request's log line say what happened instead of blaming a provider.
   */
  clientClosedRequest: () =>
    new AppError(499, 'invalid_request_error', 'client_closed_request', 'The client went away.'),
  /** A client error raised before the request reached a route (status 400, 405, 408, 413, 414, 431…). */
  clientError: (status: number, message: string, headers: Record<string, string> = {}) =>
    new AppError(status, 'invalid_request_error', 'invalid_request_error', message, { headers }),
  internal: (requestId: string) =>
    new AppError(
      500,
      'server_error',
      'internal_error',
      `The service failed to handle this request. Quote request id ${requestId} to support.`,
    ),
} as const;

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
