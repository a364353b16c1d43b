/**
 * Google API error answers as the Gemini API sends them (`{error: {code, message, status,
 * details?}}`), shared by the Gemini chat fake and the Google media fake.
 */

export type GoogleJson = Record<string, unknown>;

export interface GoogleErrorAnswer {
  readonly status: number;
  readonly body: GoogleJson;
  readonly headers: Record<string, string>;
}

export function errorBody(code: number, status: string, message: string, details?: unknown[]): GoogleJson {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

/** Canonical status and message per HTTP status. */
const STATUS_ERRORS: Readonly<Record<number, [string, string]>> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  403: ['PERMISSION_DENIED', 'The caller does not have permission'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: [
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  ],
  500: [
    'INTERNAL',
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  ],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'The request timed out. Please try again.'],
};

/** The answer of a scripted status; 429 carries Retry-After and a RetryInfo detail. */
export function statusError(status: number, retryAfterSeconds?: number): GoogleErrorAnswer {
  const [name, message] = STATUS_ERRORS[status] ?? ['UNKNOWN', 'Unknown error.'];
  if (status !== 429) return { status, body: errorBody(status, name, message), headers: {} };
  const retry = retryAfterSeconds ?? 1;
  const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }];
  return {
    status,
    body: errorBody(status, name, message, details),
    headers: { 'retry-after': String(retry) },
  };
}

/** Google's answer to a missing (403) or wrong (400 API_KEY_INVALID) key; undefined when it is right. */
export function authError(presentedKey: string | undefined, apiKey: string): GoogleErrorAnswer | undefined {
  if (presentedKey === undefined || presentedKey === '') {
    const message =
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
    return { status: 403, body: errorBody(403, 'PERMISSION_DENIED', message), headers: {} };
  }
  if (presentedKey === apiKey) return undefined;
  const details = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
  ];
  const body = errorBody(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', details);
  return { status: 400, body, headers: {} };
}
