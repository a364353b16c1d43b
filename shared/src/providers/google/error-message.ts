/**
 * Gemini's error body reduced to a short message that is safe to show a client. Documented shape
 * (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes and Google's API error model,
 * https://cloud.google.com/apis/design/errors#http_mapping):
 * `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT", "details": [...]}}`,
 * sometimes wrapped in a one-element array. `details` is never used: its DebugInfo can echo the key.
 * The message is made client-safe by the gateway's one sanitizer (upstream/upstream-text.ts).
 */
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import { errorBodySchema } from './wire-response.ts';

/** Google's canonical status names, for bodies that carry no readable message. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function parseErrorBody(bodyText: string): { message?: string; status?: string } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const parsed = errorBodySchema.safeParse(Array.isArray(json) ? json[0] : json);
  return parsed.success ? parsed.data.error : undefined;
}

/** A client-safe message for an upstream HTTP error: `Gemini <STATUS>: <message>`. */
export function googleErrorMessage(status: number, bodyText: string): string {
  const error = parseErrorBody(bodyText);
  const name = error?.status ?? STATUS_NAMES[status] ?? `HTTP ${status}`;
  const message = error?.message ? sanitizeUpstreamText(error.message) : '';
  return message.length > 0 ? `Gemini ${name}: ${message}` : `Gemini ${name}`;
}

/**
 * Whether Gemini refused the gateway's own API key. Google answers a bad key with
 * 400 INVALID_ARGUMENT (reason API_KEY_INVALID) and a missing one with 403 PERMISSION_DENIED, so a
 * caller that maps 400 to "the client's request was invalid" should check this first.
 */
export function isGoogleKeyRejection(status: number, bodyText: string): boolean {
  if (status === 400) return bodyText.includes('API_KEY_INVALID');
  return status === 401 || status === 403;
}
