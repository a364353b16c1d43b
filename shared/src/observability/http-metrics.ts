import { Counter, Histogram } from 'prom-client';
import { childrenByOne, metricsRegistry } from './registry.ts';

/** Seconds: from a few milliseconds (a refused request) to a long stream or a media wait. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds until a stream's first token: where providers spend from 100 ms to tens of seconds. */
const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 30, 60];

const requests = new Counter({
  name: 'gateway_http_requests_total',
  help: 'HTTP requests answered, by route pattern (unmatched: no route), method and status.',
  labelNames: ['route', 'method', 'status'],
  registers: [metricsRegistry],
});

const requestDuration = new Histogram({
  name: 'gateway_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer ending (a stream: its last byte), by route pattern.',
  labelNames: ['route'],
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const modelDuration = new Histogram({
  name: 'gateway_model_request_duration_seconds',
  help: 'Time from a request arriving to its answer ending, for admitted requests naming a catalogue model, by model.',
  labelNames: ['model'],
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const firstToken = new Histogram({
  name: 'gateway_time_to_first_token_seconds',
  help: 'Time from a streamed request arriving to its first chunk of output reaching the client, by model.',
  labelNames: ['model'],
  buckets: FIRST_TOKEN_BUCKETS,
  registers: [metricsRegistry],
});

const durationOfModel = childrenByOne((model) => modelDuration.labels(model));
const firstTokenOfModel = childrenByOne((model) => firstToken.labels(model));

/** Records one answered request of a route (the route's children are resolved on its first answer). */
export type RequestObserver = (method: string, status: number, seconds: number, model?: string) => void;

/** The route label of requests that matched no route (404s of unknown paths). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The observer of one route pattern: counts each answer by method and status and records its
 * latency, by route and, when the request was admitted for a catalogue model, by model.
 */
export function requestObserver(route: string): RequestObserver {
  const duration = requestDuration.labels(route);
  const counters = new Map<string, Map<number, ReturnType<typeof requests.labels>>>();
  return (method, status, seconds, model) => {
    let byStatus = counters.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      counters.set(method, byStatus);
    }
    let counter = byStatus.get(status);
    if (counter === undefined) {
      counter = requests.labels(route, method, String(status));
      byStatus.set(status, counter);
    }
    counter.inc();
    duration.observe(seconds);
    if (model !== undefined) durationOfModel(model).observe(seconds);
  };
}

/** Records how long a streamed answer took to deliver its first chunk of output. */
export function observeTimeToFirstToken(model: string, seconds: number): void {
  firstTokenOfModel(model).observe(seconds);
}
