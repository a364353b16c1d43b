import type { FastifyInstance } from 'fastify';
import { irtToMicros } from '../../../shared/src/billing/money.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { bodyNestsTooDeep, jsonNestingExceeds, MAX_JSON_DEPTH } from '../schemas/json-body.ts';
import { MAX_TOP_UP_SIGNIFICANT_DIGITS } from '../schemas/top-up.schema.ts';

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

/**
 * The body's `amount` in µIRT, exactly as written. More than 6 decimals, or more significant digits
 * than a JSON number answers exactly (top-up.schema.ts), is a 400 naming it.
 */
export function exactAmountMicros(body: { amount: number }): bigint {
  const source = amountSources.get(body) ?? String(body.amount);
  let micros: bigint;
  try {
    micros = irtToMicros(source);
  } catch {
    throw amountRefused();
  }
  if (significantDigits(micros) > MAX_TOP_UP_SIGNIFICANT_DIGITS) throw amountRefused();
  return micros;
}

/** Digits from the first non-zero one to the last: 1000.5 has 5, 0.000001 has 1. */
function significantDigits(value: bigint): number {
  return value === 0n ? 0 : String(value < 0n ? -value : value).replace(/0+$/, '').length;
}

function amountRefused() {
  return errors.invalidRequest(
    `Invalid body field \`amount\`: must have at most 6 decimals and ${MAX_TOP_UP_SIGNIFICANT_DIGITS} significant digits.`,
  );
}
