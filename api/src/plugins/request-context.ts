import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../../shared/src/logging/logger.ts';

const ID_BYTES = 12;
const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let offset = 0;

/** The width of the time part: base 36 milliseconds, enough until the year 5188. */
const TIME_DIGITS = 9;

/**
 * Request ids: unguessable (96 random bits), short, prefixed so support can tell them from other
 * ids, and led by the time in milliseconds (fixed-width base 36, which sorts as it counts), so that
 * ids made one after another sort together: a request's id is its ledger entry's key, and new keys
 * that land beside each other keep the store's index writes to a page or two per batch instead of
 * one random page per charge. The random bytes are drawn 256 ids at a time: one call into the
 * CSPRNG per request was a measurable share of the api's time under load.
 */
export function generateRequestId(): string {
  if (offset === pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${timePrefix()}${id}`;
}

let prefixMillis = 0;
let prefix = '';

/** `req_` and the time part, made once per millisecond (a busy api makes several ids in one). */
function timePrefix(): string {
  const now = Date.now();
  if (now !== prefixMillis) {
    prefixMillis = now;
    prefix = `req_${now.toString(36).padStart(TIME_DIGITS, '0')}`;
  }
  return prefix;
}

/**
 * `X-Request-Id` on every answer, and one log line per finished request. The logged path never
 * carries the query string, where a key may travel (`?key=`).
 */
export function registerRequestContext(app: FastifyInstance): void {
  // Callback hooks: an async hook costs a promise and a microtask per request, for nothing here.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if ((request.log as unknown as Logger).isLevelEnabled('info'))
      request.log.info(
        {
          method: request.method,
          path: request.url.split('?')[0],
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request completed',
      );
    done();
  });
}
