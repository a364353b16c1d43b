import {
  type Attributes,
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from '../config/config.ts';

export type { Span };
export { SpanKind };

/** How often finished spans are sent to the collector (at most; a full batch goes at once). */
const EXPORT_DELAY_MS = 1_000;

/** Set while this process exports traces; undefined otherwise, and every helper here is then a no-op. */
let tracer: Tracer | undefined;
const propagator = new W3CTraceContextPropagator();

/** The traces of a process, once set up: `shutdown` sends what is left and stops. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Sets up this process's traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is configured: spans are
 * batched and sent over OTLP/HTTP (JSON) to `<endpoint>/v1/traces` as service `serviceName`, the
 * active span follows async calls (AsyncLocalStorage). Without an endpoint nothing is set up and
 * the span helpers of this module return at once without allocating (undefined instead of a span).
 */
export function startTracing(config: Pick<Config, 'tracing'>, serviceName: string): Tracing | undefined {
  const endpoint = config.tracing.otlpEndpoint;
  if (endpoint === undefined) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }),
        scheduledDelayMillis: EXPORT_DELAY_MS,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer('model-gateway');
  return {
    async shutdown() {
      tracer = undefined;
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** Whether this process records spans (decided once, at start). */
export function isTracing(): boolean {
  return tracer !== undefined;
}

/**
 * Starts a span under `parent` (by default the active one); undefined when this process does not
 * trace. End it with `endSpan`.
 */
export function startSpan(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context = context.active(),
): Span | undefined {
  return tracer?.startSpan(name, { kind, attributes }, parent);
}

/** Ends a span from `startSpan`, as failed with `errorType` (`error.type`) when one is given. */
export function endSpan(span: Span | undefined, errorType?: string): void {
  if (span === undefined) return;
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Runs `run` inside a new span (active for everything `run` awaits); the span ends when it settles,
 * as failed when it throws. Without tracing, `run` is just called.
 */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  run: () => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  const span = startSpan(name, kind, attributes, parent);
  if (span === undefined) return run();
  let running: Promise<T>;
  try {
    running = context.with(trace.setSpan(parent, span), run);
  } catch (err) {
    // Thrown before any promise (a refused input): thrown as it was, the span ended.
    endSpan(span, errorTypeOf(err));
    throw err;
  }
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      endSpan(span, errorTypeOf(err));
      throw err;
    },
  );
}

/**
 * A Fastify hook (or any async step taking its arguments) run inside a span of its own; the hook
 * itself when this process does not trace, so an untraced process pays nothing per request.
 */
export function tracedStep<A extends unknown[]>(
  name: string,
  step: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  if (!isTracing()) return step;
  return (...args) => inSpan(name, SpanKind.INTERNAL, {}, () => step(...args));
}

/** Adds attributes to the active span (a request's or a job's), if this process traces. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (tracer !== undefined) trace.getActiveSpan()?.setAttributes(attributes);
}

/** Runs `run` with `span` active (the request span of a Fastify hook chain). */
export function withActiveSpan<T>(span: Span, run: () => T): T {
  return context.with(trace.setSpan(ROOT_CONTEXT, span), run);
}

/** The W3C `traceparent` of the active span, to carry across a queue; undefined without one. */
export function activeTraceParent(): string | undefined {
  if (tracer === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(context.active(), carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/** The context a `traceparent` (from a job, or a client's request headers) continues. */
export function contextFrom(carrier: Readonly<Record<string, unknown>>): Context {
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/** `error.type` of a failure: the service error's code, else the error's class name. */
export function errorTypeOf(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') return String(code);
    if (err instanceof Error) return err.name;
  }
  return 'Error';
}
