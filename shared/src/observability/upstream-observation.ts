import { Counter } from 'prom-client';
import { childrenByOne, childrenByTwo, metricsRegistry } from './registry.ts';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  type GenAiOperation,
  genAiProviderName,
} from './semantic-attributes.ts';
import { endSpan, isTracing, type Span, SpanKind, startSpan } from './tracing.ts';

/**
 * How one attempt at one route ended: `ok` (2xx), the provider's `429`, `5xx` (a broken answer and
 * a refused gateway credential count here: the gateway answers them as the provider's failure) or
 * other `4xx`, `timeout` (connect, headers or body), `connection_error`, or `aborted` (the client
 * went away).
 */
export type UpstreamOutcome = 'ok' | '429' | '5xx' | '4xx' | 'timeout' | 'connection_error' | 'aborted';

const attempts = new Counter({
  name: 'gateway_upstream_attempts_total',
  help: 'Calls to upstream providers, one per route tried, by provider and outcome (ok, 429, 5xx, 4xx, timeout, connection_error, aborted).',
  labelNames: ['provider', 'outcome'],
  registers: [metricsRegistry],
});

const fallbacks = new Counter({
  name: 'gateway_upstream_fallbacks_total',
  help: 'Failed attempts after which the next route of the model was tried, by the provider that failed.',
  labelNames: ['provider'],
  registers: [metricsRegistry],
});

const attemptsFor = childrenByTwo((provider, outcome) => attempts.labels(provider, outcome));
const fallbacksFor = childrenByOne((provider) => fallbacks.labels(provider));

/** The outcome of an attempt that failed with an HTTP `status`, or without one (`transport`). */
export function upstreamOutcome(status: number | null, transport: string | null): UpstreamOutcome {
  if (status !== null) {
    if (status === 429) return '429';
    return status >= 500 ? '5xx' : '4xx';
  }
  if (transport === 'timeout' || transport === 'connect_timeout') return 'timeout';
  return transport === 'aborted' ? 'aborted' : 'connection_error';
}

/**
 * The span of one attempt at a route (GenAI client span `{operation} {model}`, the model as sent
 * to the provider); undefined when this process does not trace. End it with `endUpstreamAttempt`.
 */
export function startUpstreamAttempt(
  operation: GenAiOperation,
  provider: string,
  model: string,
  channelId?: string,
): Span | undefined {
  if (!isTracing()) return undefined;
  return startSpan(`${operation} ${model}`, SpanKind.CLIENT, {
    [ATTR_GEN_AI_OPERATION_NAME]: operation,
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(provider),
    [ATTR_GEN_AI_REQUEST_MODEL]: model,
    'gateway.provider': provider,
    ...(channelId === undefined ? {} : { 'gateway.channel.id': channelId }),
  });
}

/**
 * Records how an attempt ended: counted by provider and outcome, a fallback counted when the next
 * route is tried after it, and its span (if any) ended, as failed unless `ok`.
 */
export function endUpstreamAttempt(
  span: Span | undefined,
  provider: string,
  outcome: UpstreamOutcome,
  fallback: boolean,
): void {
  attemptsFor(provider, outcome).inc();
  if (fallback) fallbacksFor(provider).inc();
  if (span === undefined) return;
  span.setAttribute('gateway.upstream.outcome', outcome);
  span.setAttribute('gateway.upstream.fallback', fallback);
  endSpan(span, outcome === 'ok' ? undefined : outcome);
}
