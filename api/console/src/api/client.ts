/**
 * The console's calls to its own JSON endpoints (`/console/api`, docs/console.md) and, for the
 * playground, to the public `/v1` API. Same origin only: the CSP allows `connect-src 'self'`.
 */

export const CONSOLE_API = '/console/api';

/** An answer that was not 2xx, with the API's error envelope when it had one. */
export class ApiError extends Error {
  readonly status: number;
  /** `error.code` of the envelope (string or number), or a client-side code such as `network_error`. */
  readonly code: string;
  readonly type: string | undefined;
  /** `Retry-After` in seconds, on 429. */
  readonly retryAfter: number | undefined;
  readonly requestId: string | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { type?: string; retryAfter?: number; requestId?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.type = extra.type;
    this.retryAfter = extra.retryAfter;
    this.requestId = extra.requestId;
  }
}

let csrfToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** The session's CSRF token, sent as `X-CSRF-Token` with every state-changing call. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when a console call answers 401: the session ended (expired, revoked elsewhere). */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
  onUnauthorized = handler;
}

export interface RequestOptions {
  readonly query?: Record<string, string | number | undefined | null>;
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /** Do not report a 401 as the end of the session (sign-in, the first session check). */
  readonly expectUnauthorized?: boolean;
  readonly headers?: Record<string, string>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Builds `path?query` with the given parameters, leaving out the empty ones. */
export function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Sends one console call and answers its parsed JSON (undefined for 204); throws ApiError otherwise. */
export async function consoleApi<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await consoleFetch(method, path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Like consoleApi, but answers the raw Response (CSV export). */
export async function consoleFetch(
  method: Method,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    // Sign-in and password-setting calls have no session yet: this header is their CSRF defence.
    'x-requested-with': 'console',
    ...options.headers,
  };
  if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(`${CONSOLE_API}${path}`, options.query), {
      method,
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', err instanceof Error ? err.message : String(err));
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401 && !options.expectUnauthorized) onUnauthorized?.();
    throw error;
  }
  return response;
}

/** The ApiError of a non-2xx answer, read from the API's envelope `{error: {message, type, code}}`. */
export async function errorFrom(response: Response): Promise<ApiError> {
  let message = response.statusText;
  let code = `http_${response.status}`;
  let type: string | undefined;
  try {
    const parsed = (await response.json()) as {
      error?: { message?: string; code?: string | number | null; type?: string };
      message?: string;
    };
    if (parsed.error) {
      message = parsed.error.message ?? message;
      type = parsed.error.type;
      code = String(parsed.error.code ?? parsed.error.type ?? code);
    } else if (typeof parsed.message === 'string') {
      // 422 field validation of the media endpoints: {message, errors}.
      message = parsed.message;
      code = response.status === 422 ? 'validation_failed' : code;
    }
  } catch {
    // Not JSON: keep the status text.
  }
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, code, message, {
    type,
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : undefined,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}
