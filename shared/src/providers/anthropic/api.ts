/**
 * Where and how to call the Anthropic Messages API: the one place that knows its URL and auth.
 * Documented at https://docs.anthropic.com/en/api/messages (headers `x-api-key`,
 * `anthropic-version: 2023-06-01`, `content-type: application/json`; `POST /v1/messages`).
 */

/** The API version every request pins; newer behaviour is opted into per field, not by header. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `POST` target for messages, from a configured base URL such as `https://api.anthropic.com`. */
export function anthropicMessagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  // A base URL configured with the version prefix must not end up as `/v1/v1/messages`.
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}

/** Headers for one call: the key goes in `x-api-key`, never in `Authorization`. */
export function anthropicHeaders(apiKey: string, stream: boolean): Record<string, string> {
  return {
    'x-api-key': apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}
