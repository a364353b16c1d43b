import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, onResponseHookHandler } from 'fastify';
import { requestObserver, UNMATCHED_ROUTE } from '../../../shared/src/observability/http-metrics.ts';
import {
  contextFrom,
  endSpan,
  isTracing,
  type Span,
  SpanKind,
  startSpan,
  withActiveSpan,
} from '../../../shared/src/observability/tracing.ts';

/**
 * Metrics of every answered request (docs/observability.md): each route gets its own `onResponse`
 * hook when it is registered, holding that route's metric children, so an answer costs a few map
 * lookups and no label building; requests no route matched count under `unmatched`. When the
 * process traces, each request also gets a server span. Register before any route.
 */
export function registerObservability(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const observe = requestObserver(route.url);
    // An answer that finished counts here; one that did not (the client went away first, or the
    // write failed: Fastify runs onResponse for neither, or for the failure) counts once, as 499,
    // when its response closes.
    const answered: onResponseHookHandler = (request, reply, done) => {
      if (reply.raw.writableFinished)
        observe(request.method, reply.statusCode, reply.elapsedTime / 1000, request.admission?.model);
      done();
    };
    const watchClose: onRequestHookHandler = (request, reply, done) => {
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished)
          observe(request.method, CLIENT_CLOSED_REQUEST, reply.elapsedTime / 1000, request.admission?.model);
      });
      done();
    };
    route.onRequest = [...hooksOf(route.onRequest), watchClose];
    route.onResponse = [...hooksOf(route.onResponse), answered];
  });
  const unmatched = requestObserver(UNMATCHED_ROUTE);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (isTracing()) registerRequestSpans(app);
}

/** nginx's status for a client that closed the connection before its answer was sent. */
const CLIENT_CLOSED_REQUEST = 499;

function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * A server span per request (`{method} {route}`, continuing the caller's `traceparent` if it sent
 * one), active through the hooks and the handler: the spans of admission, upstream attempts, the
 * enqueue of a job and the settlement are its children. Request bodies arrive on socket events,
 * outside the request's async context, so the span is made active again before validation and
 * before the handler.
 */
function registerRequestSpans(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const span = startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      SpanKind.SERVER,
      {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_HTTP_ROUTE]: route ?? UNMATCHED_ROUTE,
        'gateway.request.id': request.id,
      },
      contextFrom(request.headers),
    );
    if (span === undefined) {
      done();
      return;
    }
    spans.set(request, span);
    // The client left before its answer finished: onResponse will not run.
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      const open = spans.get(request);
      spans.delete(request);
      endSpan(open, 'client_closed_request');
    });
    withActiveSpan(span, done);
  });
  const reenter = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    const span = spans.get(request);
    if (span === undefined) done();
    else withActiveSpan(span, done);
  };
  app.addHook('preValidation', reenter);
  app.addHook('preHandler', reenter);
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    spans.delete(request);
    span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.statusCode);
    endSpan(span, reply.statusCode >= 500 ? String(reply.statusCode) : undefined);
    done();
  });
}
