/**
 * The properties every answer of the fuzz run must have (docs/reliability.md, "Fuzz"):
 * - it arrives, complete, before the client's deadline, and Node's HTTP client can parse it;
 * - its status is below 500 (the documented 502/503/504 of an upstream or store outage cannot
 *   happen with SIMULATE_PROVIDERS and private stores, so they count as failures too; the only
 *   5xx allowed is the console's documented "not built" page when the caller says so);
 * - every 4xx (but to HEAD) is JSON in the spec's envelope `{error: {message, type, code, param}}`,
 *   or, on the media endpoints, the 422 field-validation shape `{message, errors}`;
 * - every error answer carries an `X-Request-Id`;
 * - a streamed chat answer (200, text/event-stream) ends with `data: [DONE]`.
 */
import type { Outcome, Wire } from './send.ts';

export type Property = 'answered' | 'well-formed' | 'no-5xx' | 'envelope' | 'request-id' | 'stream-done';

export interface Violation {
  readonly property: Property;
  readonly detail: string;
}

export interface CheckOptions {
  /** Accept the console's documented 503 page while `api/console/dist` is not built. */
  readonly consolePagesMayBeUnbuilt: boolean;
}

const MEDIA_PATH = /^\/v1\/+(images|audio|videos)(\/|$|\?)/;

export function checkOutcome(wire: Wire, outcome: Outcome, options: CheckOptions): Violation[] {
  if (outcome.kind === 'answerless')
    return [{ property: outcome.malformed === true ? 'well-formed' : 'answered', detail: outcome.reason }];
  const { answer } = outcome;
  const violations: Violation[] = [];
  const contentType = answer.headers['content-type'] ?? '';
  const text = answer.body.toString('utf8');
  const path = wire.path;
  const head = wire.method.toUpperCase() === 'HEAD';

  if (answer.status >= 500) {
    const consolePage =
      answer.status === 503 &&
      /^\/console(\/|$)/.test(path) &&
      !path.startsWith('/console/api') &&
      contentType.startsWith('text/html') &&
      text.includes('not built');
    if (!(consolePage && options.consolePagesMayBeUnbuilt))
      violations.push({ property: 'no-5xx', detail: `${answer.status} ${text.slice(0, 300)}` });
  }
  if (answer.status >= 400 && answer.headers['x-request-id'] === undefined)
    violations.push({ property: 'request-id', detail: `${answer.status} without X-Request-Id` });
  if (answer.status >= 400 && answer.status < 500 && !head) {
    const problem = envelopeProblem(answer.status, contentType, text, MEDIA_PATH.test(path));
    if (problem !== undefined)
      violations.push({ property: 'envelope', detail: `${answer.status}: ${problem}` });
  }
  if (answer.status === 200 && contentType.startsWith('text/event-stream') && !head) {
    const lines = text.split('\n').filter((line) => line.startsWith('data:'));
    if (lines.at(-1)?.trim() !== 'data: [DONE]')
      violations.push({
        property: 'stream-done',
        detail: `last event: ${String(lines.at(-1)).slice(0, 200)}`,
      });
  }
  return violations;
}

/** Why a 4xx body is not in an allowed error shape, or undefined when it is. */
function envelopeProblem(
  status: number,
  contentType: string,
  text: string,
  mediaPath: boolean,
): string | undefined {
  if (text === '') return `empty body (content-type ${JSON.stringify(contentType)})`;
  if (!contentType.startsWith('application/json'))
    return `content-type ${JSON.stringify(contentType)}: ${text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (typeof body !== 'object' || body === null) return `not an object: ${text.slice(0, 200)}`;
  const record = body as Record<string, unknown>;
  if ('error' in record) {
    const error = record.error as Record<string, unknown> | null;
    if (typeof error !== 'object' || error === null) return `error is not an object: ${text.slice(0, 200)}`;
    const bad: string[] = [];
    if (typeof error.message !== 'string') bad.push('message');
    if (typeof error.type !== 'string') bad.push('type');
    if (typeof error.code !== 'string' && typeof error.code !== 'number') bad.push('code');
    if (!(error.param === null || typeof error.param === 'string')) bad.push('param');
    return bad.length === 0 ? undefined : `bad ${bad.join(', ')}: ${text.slice(0, 200)}`;
  }
  if (status === 422 && mediaPath) {
    const errors = record.errors as Record<string, unknown> | undefined;
    const fieldsOk =
      typeof errors === 'object' &&
      errors !== null &&
      Object.values(errors).every((list) => Array.isArray(list) && list.every((m) => typeof m === 'string'));
    return typeof record.message === 'string' && fieldsOk
      ? undefined
      : `bad 422 shape: ${text.slice(0, 200)}`;
  }
  return `no error envelope: ${text.slice(0, 200)}`;
}
