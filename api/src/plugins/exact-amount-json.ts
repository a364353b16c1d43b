import type { FastifyInstance } from 'fastify';
import { irtToMicros } from '../../../shared/src/billing/money.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { bodyNestsTooDeep, jsonNestingExceeds, MAX_JSON_DEPTH } from '../schemas/json-body.ts';

// The amount as the client wrote it: a double cannot hold 18 significant digits (1e12 with 6
// decimals), and a silently rounded credit is worse than a refused one.
const amountSources = new WeakMap<object, string>();

/**
 * Replaces the JSON parser of the plugin it is called in by one that keeps the source text of the
 * body's top-level `amount` beside the parsed body (JSON.parse source text access, Node ≥ 21), so
 * `exactAmountMicros` converts it exactly. Same answers as the app's parser otherwise (the depth
 * bound of json-body.ts included).
 */
export function registerExactAmountParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (jsonNestingExceeds(text as string, MAX_JSON_DEPTH)) {
      done(bodyNestsTooDeep(), undefined);
      return;
    }
    const sources = new Map<object, string>();
    try {
      const body: unknown = JSON.parse(
        text as string,
        function (this: object, key, value, context?: { source?: string }) {
          if (key === 'amount' && typeof value === 'number' && context?.source !== undefined) {
            sources.set(this, context.source);
          }
          return value;
        },
      );
      const source = typeof body === 'object' && body !== null ? sources.get(body) : undefined;
      if (source !== undefined) amountSources.set(body as object, source);
      done(null, body);
    } catch {
      done(errors.invalidRequest('The request body is not valid JSON.'), undefined);
    }
  });
}

/** The body's `amount` in µIRT, exactly as written; more than 6 decimals is a 400 naming it. */
export function exactAmountMicros(body: { amount: number }): bigint {
  const source = amountSources.get(body) ?? String(body.amount);
  try {
    return irtToMicros(source);
  } catch {
    throw errors.invalidRequest('Invalid body field `amount`: must have at most 6 decimals.');
  }
}
