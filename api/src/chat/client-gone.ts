import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when the client disconnects before its answer was fully sent, so the upstream
 * call behind it is cancelled at once. Its reason is an `AbortError`: the cancelled call counts as
 * aborted (outcome `aborted`, no fallback to another route, no provider blamed) and the request
 * ends as 499 `client_closed_request`.
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished)
      controller.abort(new DOMException('The client went away.', 'AbortError'));
  });
  return controller.signal;
}
