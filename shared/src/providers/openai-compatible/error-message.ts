/**
 * OpenAI-compatible error body -> a short message that is safe to show a client.
 *
 * Shapes followed: OpenAI/DeepSeek/Groq `{error: {message, type, param, code}}` (OpenAI error
 * codes guide; openai-node `APIError`); xAI `{code, error: "<message>"}`; Mistral
 * `{object: 'error', message: "<text>" | {detail: [...]}, type, param, code}` and its gateway's
 * `{message: "Unauthorized"}`; FastAPI-style `{detail: [{loc, msg}]}` validation lists (Mistral 422
 * `extra_forbidden`). xAI has also been seen answering a bare JSON string, percent-encoded at times
 * ("Incorrect%20API%20key…"). Anything else yields a generic message, never the raw body. The
 * message is made client-safe by the gateway's one upstream-text sanitizer (held secrets by value,
 * key shapes, URLs, hosts: upstream/upstream-text.ts).
 */
import { z } from 'zod';
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';

const validationItemSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])).optional(),
  msg: z.string(),
});
const detailSchema = z.union([z.string(), z.array(validationItemSchema)]);

const errorBodySchema = z.object({
  error: z.union([z.string(), z.object({ message: z.string().nullish() })]).optional(),
  message: z.union([z.string(), z.object({ detail: detailSchema })]).nullish(),
  detail: detailSchema.optional(),
});

/**
 * Whether an error answer means the gateway's own key was refused: 401, or xAI's 400 "Incorrect
 * API key provided" (xAI answers a bad key with 400, which would otherwise read as the client's fault).
 */
export function isCredentialRejection(status: number, bodyText: string): boolean {
  if (status === 401) return true;
  if (status !== 400 && status !== 403) return false;
  const text = documentedMessage(bodyText);
  return text !== undefined && /\b(?:incorrect|invalid|missing|no) api[ _-]?key\b/i.test(text);
}

/** The client-safe message for an upstream error answer (`UpstreamErrorMessage`). */
export function errorMessage(status: number, bodyText: string): string {
  const text = documentedMessage(bodyText);
  const safe = text === undefined ? '' : sanitizeUpstreamText(text);
  return safe === '' ? genericMessage(status) : safe;
}

function documentedMessage(bodyText: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  if (typeof json === 'string') return percentDecoded(json);
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { error, message, detail } = parsed.data;
  if (typeof error === 'string') return percentDecoded(error);
  if (error?.message) return error.message;
  if (typeof message === 'string') return message;
  if (message) return detailText(message.detail);
  return detail === undefined ? undefined : detailText(detail);
}

function percentDecoded(text: string): string {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function detailText(detail: z.infer<typeof detailSchema>): string {
  if (typeof detail === 'string') return detail;
  return detail.map((item) => (item.loc ? `${item.loc.join('.')}: ${item.msg}` : item.msg)).join('; ');
}

function genericMessage(status: number): string {
  if (status === 401 || status === 403)
    return `The provider refused the gateway's credentials (HTTP ${status}).`;
  if (status === 429) return 'The provider is rate limiting requests (HTTP 429).';
  if (status >= 500) return `The provider failed to answer (HTTP ${status}).`;
  return `The provider rejected the request (HTTP ${status}).`;
}
