import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest, onResponseHookHandler } from 'fastify';
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
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(request.method, reply.statusCode, reply.elapsedTime / 1000, request.admission?.model);
      done();
    };
    const existing = route.onResponse;
    route.onResponse =
      existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
  const unmatched = requestObserver(UNMATCHED_ROUTE);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (isTracing()) registerRequestSpans(app);
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
  app.addHook('onRequest', (request, _reply, done) => {
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
  // The client left before its answer finished: onResponse will not run.
  app.addHook('onRequestAbort', (request, done) => {
    const span = spans.get(request);
    spans.delete(request);
    endSpan(span, 'client_closed_request');
    done();
  });
}
