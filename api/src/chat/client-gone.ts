import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when the client disconnects before its answer was fully sent, so the upstream
 * call behind it is cancelled at once.
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}
