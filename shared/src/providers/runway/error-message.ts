/**
 * Runway's error body reduced to a short message that is safe to show a client. Documented shape
 * (https://docs.dev.runwayml.com/errors/errors): a JSON object with an `error` member holding a
 * human-readable explanation, e.g. `{"error": "…"}`; input validation failures add `issues`, a
 * list of `{message, path?}`. Statuses: 400 bad input, 401 invalid key, 404 unknown resource,
 * 405, 429 rate or integration limit, 502/503 load shedding, 504 overloaded. Anything else gives a
 * generic message, never the raw body. Keys (the held one by value, and any `key_…`), URLs and hosts
 * are removed by the gateway's one sanitizer (upstream/upstream-text.ts).
 */
import { z } from 'zod';
import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import { parseJsonAs } from '../parse-json-body.ts';

const errorBodySchema = z.object({
  error: z.string(),
  issues: z
    .array(
      z.object({
        message: z.string().optional(),
        path: z.array(z.union([z.string(), z.number()])).optional(),
      }),
    )
    .optional(),
});

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'invalid request',
  401: 'invalid API key',
  404: 'not found',
  405: 'method not allowed',
  429: 'rate limited',
  502: 'shedding load',
  503: 'shedding load',
  504: 'overloaded',
};

function readErrorBody(bodyText: string): string | undefined {
  const body = parseJsonAs(errorBodySchema, bodyText);
  if (body === undefined) return undefined;
  const issue = body.issues?.find((item) => item.message);
  if (!issue?.message) return body.error;
  const where = issue.path && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${body.error} (${where}${issue.message})`;
}

/** A client-safe message for an upstream HTTP error: `Runway <status>: <message>`. */
export function runwayErrorMessage(status: number, bodyText: string): string {
  const text = readErrorBody(bodyText);
  const message = text === undefined ? '' : sanitizeUpstreamText(text);
  const name = `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  return message.length > 0 ? `Runway ${name}: ${message}` : `Runway ${name}`;
}

/** Whether Runway refused the gateway's own key (401; 403 for a key without access). */
export function isRunwayKeyRejection(status: number, _bodyText: string): boolean {
  return status === 401 || status === 403;
}
