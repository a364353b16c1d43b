import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../../shared/src/logging/logger.ts';

/** Request ids: unguessable, short, prefixed so support can tell them from other ids. */
export function generateRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}

/**
 * `X-Request-Id` on every answer, and one log line per finished request. The logged path never
 * carries the query string, where a key may travel (`?key=`).
 */
export function registerRequestContext(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!(request.log as unknown as Logger).isLevelEnabled('info')) return;
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request completed',
    );
  });
}
