/**
 * ElevenLabs' error body reduced to a short message that is safe to show a client. Documented
 * shapes (https://help.elevenlabs.io "API - Error Code 400 or 401", and the API reference):
 * `{"detail": {"status": "invalid_api_key", "message": "…"}}` (also `max_character_limit_exceeded`,
 * `voice_not_found`, `quota_exceeded`, `too_many_concurrent_requests`, `system_busy`; newer
 * answers may carry `code`/`type` beside `message`), `{"detail": "…"}`, and the FastAPI validation
 * list `{"detail": [{"loc": [...], "msg": "…", "type": "…"}]}` on 422. Anything else gives a
 * generic message, never the raw body. Keys (the held one by value, and any `sk_…`), URLs and hosts
 * are removed by the gateway's one sanitizer (upstream/upstream-text.ts).
 */
import { z } from 'zod';
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import { parseJsonAs } from '../parse-json-body.ts';

const validationItemSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])).optional(),
  msg: z.string(),
});

const errorBodySchema = z.object({
  detail: z.union([
    z.string(),
    z.array(validationItemSchema),
    z.object({
      status: z.string().optional(),
      code: z.string().optional(),
      message: z.string().optional(),
    }),
  ]),
});

interface ReadError {
  status?: string;
  message?: string;
}

function readErrorBody(bodyText: string): ReadError | undefined {
  const body = parseJsonAs(errorBodySchema, bodyText);
  if (body === undefined) return undefined;
  const { detail } = body;
  if (typeof detail === 'string') return { message: detail };
  if (Array.isArray(detail)) {
    const message = detail
      .map((item) => (item.loc ? `${item.loc.join('.')}: ${item.msg}` : item.msg))
      .join('; ');
    return { status: 'validation_error', message };
  }
  return { status: detail.status ?? detail.code, message: detail.message };
}

/** A client-safe message for an upstream HTTP error: `ElevenLabs <status>: <message>`. */
export function elevenlabsErrorMessage(status: number, bodyText: string): string {
  const error = readErrorBody(bodyText);
  const name = error?.status && /^[a-z_]{1,60}$/.test(error.status) ? error.status : `HTTP ${status}`;
  const message = error?.message ? sanitizeUpstreamText(error.message) : '';
  return message.length > 0 ? `ElevenLabs ${name}: ${message}` : `ElevenLabs ${name}`;
}

/**
 * Whether ElevenLabs refused the gateway's own key or account: 401 (`invalid_api_key`, and also
 * `quota_exceeded` when the account is out of credits) and 403 (the key lacks a permission).
 * Neither is the client's fault.
 */
export function isElevenLabsKeyRejection(status: number, _bodyText: string): boolean {
  return status === 401 || status === 403;
}
