import type { Job, Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { withinMs } from '../runtime/within.ts';
import { metricsRegistry } from './registry.ts';

/** The job states counted per queue. */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
/** A scrape does not wait longer than this for Redis: a queue that did not answer is left out. */
const READ_TIMEOUT_MS = 1_000;

/** The queues of one producer, by name (the api's handles on every media queue). */
type QueueSet = Readonly<Record<string, Queue>>;
const queueSets = new Set<QueueSet>();

new Gauge({
  name: 'gateway_queue_jobs',
  help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, prioritized, failed), read from Redis at scrape time.',
  labelNames: ['queue', 'state'],
  registers: [metricsRegistry],
  async collect() {
    const totals = new Map<string, Record<string, number>>();
    await forEachQueue(async (name, queue) => {
      const counts = await queue.getJobCounts(...STATES);
      const total = totals.get(name) ?? {};
      for (const state of STATES) total[state] = (total[state] ?? 0) + (counts[state] ?? 0);
      totals.set(name, total);
    });
    this.reset();
    for (const [name, total] of totals) {
      for (const state of STATES) this.labels(name, state).set(total[state] ?? 0);
    }
  },
});

new Gauge({
  name: 'gateway_queue_oldest_waiting_seconds',
  help: 'Age of the job waiting longest in each BullMQ queue (0 when none waits), read from Redis at scrape time.',
  labelNames: ['queue'],
  registers: [metricsRegistry],
  async collect() {
    const now = Date.now();
    const ages = new Map<string, number>();
    await forEachQueue(async (name, queue) => {
      const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
      const age = oldest === undefined ? 0 : Math.max(0, now - waitingSince(oldest)) / 1000;
      ages.set(name, Math.max(age, ages.get(name) ?? 0));
    });
    this.reset();
    for (const [name, age] of ages) this.labels(name).set(age);
  },
});

/**
 * Reports `queues` in `gateway_queue_jobs` and `gateway_queue_oldest_waiting_seconds` until the
 * returned function is called. Several sets (several producers in one process) add up by queue
 * name; the oldest waiting job is the oldest of them.
 */
export function trackQueues(queues: QueueSet): () => void {
  queueSets.add(queues);
  return () => queueSets.delete(queues);
}

/**
 * When a waiting job became due: when it was added, or, for a job that waited in `delayed` (a
 * retry's backoff, a video's next poll), about when its delay ran out (from its last run).
 */
export function waitingSince(job: Pick<Job, 'timestamp' | 'processedOn' | 'delay'>): number {
  const delay = Number(job.delay) || 0;
  return Math.max(Number(job.timestamp), (Number(job.processedOn) || 0) + delay);
}

async function forEachQueue(read: (name: string, queue: Queue) => Promise<void>): Promise<void> {
  const reads: Promise<void>[] = [];
  for (const queues of queueSets) {
    for (const [name, queue] of Object.entries(queues))
      reads.push(withinMs(read(name, queue), READ_TIMEOUT_MS));
  }
  await Promise.all(reads);
}
