/**
 * Anthropic error bodies → short client-safe messages, and in-stream error types → HTTP statuses.
 * Documented shapes followed (https://docs.anthropic.com/en/api/errors): every error body is
 * `{type: 'error', error: {type, message}, request_id}`, with `error.type` per status:
 * 400 invalid_request_error, 401 authentication_error, 402 billing_error, 403 permission_error,
 * 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 500 api_error,
 * 504 timeout_error, 529 overloaded_error. In a stream the same `error` object arrives as an
 * `event: error` after the 200 status (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
 */
import { z } from 'zod';
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';

const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

const errorBodySchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
});

/** The HTTP status Anthropic documents for an error type; unknown types count as 500 (`api_error`). */
export function statusForErrorType(type: string): number {
  return STATUS_BY_ERROR_TYPE[type] ?? 500;
}

/** The `UpstreamErrorMessage` of this provider: the documented `error.message`, scrubbed, else a generic line. */
export function anthropicErrorMessage(status: number, bodyText: string): string {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return genericMessage(status);
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return genericMessage(status);
  return safeMessage(parsed.data.error.message) ?? genericMessage(status);
}

/**
 * An upstream message made client-safe by the gateway's one sanitizer (held secrets, key shapes,
 * URLs, hosts; upstream/upstream-text.ts); undefined when nothing is left.
 */
export function safeMessage(message: string): string | undefined {
  const scrubbed = sanitizeUpstreamText(message);
  return scrubbed === '' ? undefined : scrubbed;
}

function genericMessage(status: number): string {
  const type = Object.entries(STATUS_BY_ERROR_TYPE).find(([, s]) => s === status)?.[0];
  return type === undefined
    ? `The provider answered HTTP ${status}.`
    : `The provider answered HTTP ${status} (${type.replace(/_/g, ' ')}).`;
}
