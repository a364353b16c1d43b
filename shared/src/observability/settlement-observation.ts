import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from './registry.ts';
import { inSpan, isTracing, SpanKind } from './tracing.ts';

/** Where settlements wait unwritten: a settlement batcher's queue length. */
type BacklogSource = () => number;
const backlogSources = new Set<BacklogSource>();

new Gauge({
  name: 'gateway_settlement_backlog',
  help: 'Charges queued in this process for the group commit and not yet written to the store.',
  registers: [metricsRegistry],
  collect() {
    let waiting = 0;
    for (const source of backlogSources) waiting += source();
    this.set(waiting);
  },
});

const batchSize = new Histogram({
  name: 'gateway_settlement_batch_size',
  help: 'Charges per settlement batch written (group commit), whether or not the store recorded it.',
  buckets: [1, 2, 5, 10, 25, 50, 100, 150, 200, 250],
  registers: [metricsRegistry],
});

const batchDuration = new Histogram({
  name: 'gateway_settlement_batch_duration_seconds',
  help: 'Time to write one settlement batch to the store and publish it.',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

const batches = new Counter({
  name: 'gateway_settlement_batches_total',
  help: 'Settlement batches by outcome: written, or failed (then retried, or settled charge by charge).',
  labelNames: ['outcome'],
  registers: [metricsRegistry],
});
const written = batches.labels('written');
const failed = batches.labels('failed');

/** Reports a batcher's queue in `gateway_settlement_backlog` until the returned function is called. */
export function trackSettlementBacklog(source: BacklogSource): () => void {
  backlogSources.add(source);
  return () => backlogSources.delete(source);
}

/** Records one settlement batch: its size, how long its write took, and whether it was recorded. */
export function observeSettlementBatch(charges: number, seconds: number, recorded: boolean): void {
  batchSize.observe(charges);
  batchDuration.observe(seconds);
  (recorded ? written : failed).inc();
}

/** What a settlement span says about the charge it settles. */
export interface SettledCharge {
  readonly requestId: string;
  readonly model: string;
  readonly costMicros: bigint;
}

/**
 * Runs a settlement (`deferred`: queued for the next batch; `direct`: written before it resolves)
 * inside a `gateway.settle` span when this process traces; otherwise just runs it.
 */
export function tracedSettlement<I extends SettledCharge, R>(
  input: I,
  mode: 'deferred' | 'direct',
  settle: (input: I) => Promise<R>,
): Promise<R> {
  if (!isTracing()) return settle(input);
  const attributes = {
    'gateway.settlement.mode': mode,
    'gateway.settlement.id': input.requestId,
    'gateway.model': input.model,
    'gateway.cost_micro_irt': Number(input.costMicros),
  };
  return inSpan('gateway.settle', SpanKind.INTERNAL, attributes, () => settle(input));
}
