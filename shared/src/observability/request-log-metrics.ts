import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './registry.ts';

const dropped = new Counter({
  name: 'gateway_request_log_dropped_total',
  help: 'Request log records lost: the queue was full, or the store could not write them',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});
const full = dropped.labels('queue_full');
const unwritten = dropped.labels('store_failed');

let queued: () => number = () => 0;
new Gauge({
  name: 'gateway_request_log_backlog',
  help: 'Request log records waiting in memory to be written',
  registers: [metricsRegistry],
  collect() {
    this.set(queued());
  },
});

/** Records refused because the in-memory queue was full. */
export function countDroppedQueueFull(count = 1): void {
  full.inc(count);
}

/** Records of a batch the store refused (an outage, a full disk). */
export function countDroppedUnwritten(count: number): void {
  unwritten.inc(count);
}

/** The queue's length at each scrape. */
export function trackRequestLogBacklog(length: () => number): () => void {
  queued = length;
  return () => {
    if (queued === length) queued = () => 0;
  };
}
