import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The metric registry of this process: every `gateway_*` family (docs/observability.md) and the
 * process's own (`process_*`, `nodejs_*`: CPU, memory, event-loop delay, garbage collection).
 * Families are defined once, at module load; the code paths call the small `observe*` functions of
 * the sibling modules, which touch children cached per label set.
 */
export const metricsRegistry = new Registry();

collectDefaultMetrics({ register: metricsRegistry });

/** The `Content-Type` of the text exposition format served at `/metrics`. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** The exposition text of every metric of this process (collect callbacks read BullMQ then). */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}

/**
 * Children of a metric with two labels, created on first use and kept: label sets are bounded
 * (routes, models, providers, outcomes), so a lookup replaces building a series key per event.
 */
export function childrenByTwo<C>(make: (a: string, b: string) => C): (a: string, b: string) => C {
  const byA = new Map<string, Map<string, C>>();
  return (a, b) => {
    let byB = byA.get(a);
    if (byB === undefined) {
      byB = new Map();
      byA.set(a, byB);
    }
    let child = byB.get(b);
    if (child === undefined) {
      child = make(a, b);
      byB.set(b, child);
    }
    return child;
  };
}

/** Children of a metric with one label, created on first use and kept. */
export function childrenByOne<C>(make: (a: string) => C): (a: string) => C {
  const byA = new Map<string, C>();
  return (a) => {
    let child = byA.get(a);
    if (child === undefined) {
      child = make(a);
      byA.set(a, child);
    }
    return child;
  };
}
