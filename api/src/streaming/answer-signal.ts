import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when nobody will take the request's answer any more, so the upstream call (or
 * the wait) behind it is cancelled at once: the client disconnected before its answer was fully
 * sent, or the api is stopping (`app.stopping`, whose reason it then carries). Its reason is an
 * `AbortError`: the cancelled call counts as aborted (outcome `aborted`, no fallback to another
 * route, no provider blamed); the request ends as 499 `client_closed_request`, which the error
 * handler answers as the 503 of a restart when the client is still there.
 */
export function answerSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const stopping = reply.server.stopping;
  const onStop = () => controller.abort(stopping.reason);
  const raw = reply.raw;
  raw.once('close', () => {
    stopping.removeEventListener('abort', onStop);
    if (!raw.writableFinished) controller.abort(new DOMException('The client went away.', 'AbortError'));
  });
  if (stopping.aborted) onStop();
  else stopping.addEventListener('abort', onStop, { once: true });
  return controller.signal;
}
