import type { FastifyInstance } from 'fastify';
import { type AppError, errors } from '../../../shared/src/errors/app-error.ts';

/**
 * The deepest nesting of arrays and objects a JSON body may have (the body object itself is level
 * 1). The spec's deepest structure, a message's content part, sits at level 6, and a tool's JSON
 * Schema rarely passes 20; the bound keeps every later walk over a body (validation, estimates,
 * serialization towards a provider, logs) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests arrays and objects deeper than `limit`, found in one pass over the
 * text without recursion and before it is parsed (parsing 4 million levels takes seconds), and
 * stopping at the first level too deep. Brackets inside strings do not count; malformed text is
 * left for the parser to refuse.
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 when none does. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0) {
    let backslashes = 0;
    for (let k = at - 1; k > open && text.charCodeAt(k) === 0x5c; k--) backslashes += 1;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * Replaces Fastify's `application/json` parser (for every plugin registered after it) by the same
 * parser (secure-json-parse, prototype poisoning refused) behind the depth bound: a body nested
 * deeper than `MAX_JSON_DEPTH` answers 400 `invalid_request_error` before it is parsed.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestingExceeds(body as string, MAX_JSON_DEPTH)) {
      done(bodyNestsTooDeep(), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}

/** The 400 of a body nested deeper than `MAX_JSON_DEPTH`, whichever parser found it. */
export function bodyNestsTooDeep(): AppError {
  return errors.invalidRequest(
    `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
  );
}
