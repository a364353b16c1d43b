import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { Counter, Histogram } from 'prom-client';
import { childrenByOne, childrenByTwo, metricsRegistry } from './registry.ts';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
} from './semantic-attributes.ts';
import {
  activeTraceParent,
  contextFrom,
  endSpan,
  errorTypeOf,
  inSpan,
  isTracing,
  SpanKind,
  startSpan,
  withActiveSpan,
} from './tracing.ts';

/**
 * How one run of a job ended: `completed`, `discarded` (the job ended elsewhere meanwhile: the api
 * gave up, another attempt completed it), `skipped` (it had already ended, or is gone), `delayed`
 * (a render still running: polled again later), `retried` (failed; BullMQ runs it again after a
 * backoff) or `failed` (for good).
 */
export type JobOutcome = 'completed' | 'discarded' | 'skipped' | 'delayed' | 'retried' | 'failed';

const jobDuration = new Histogram({
  name: 'gateway_job_duration_seconds',
  help: 'Time a worker spent on one run of a job, by kind (queue) and outcome (completed, discarded, skipped, delayed, retried, failed); its _count counts runs by outcome.',
  labelNames: ['kind', 'outcome'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  registers: [metricsRegistry],
});

const stalled = new Counter({
  name: 'gateway_jobs_stalled_total',
  help: 'Jobs whose worker stopped renewing its lock (died, or blocked) and that this worker handed back to the queue, by kind.',
  labelNames: ['kind'],
  registers: [metricsRegistry],
});

const durationFor = childrenByTwo((kind, outcome) => jobDuration.labels(kind, outcome));
const stalledFor = childrenByOne((kind) => stalled.labels(kind));

/** What a job's payload carries besides its own fields: the trace it was enqueued in. */
export interface JobTraceCarrier {
  /** W3C `traceparent` of the span that enqueued the job (only when the producer traces). */
  readonly traceparent?: string;
}

/**
 * Adds a job inside a `send <queue>` producer span whose `traceparent` goes with the job, so the
 * worker's run continues the request's trace; without tracing, adds it as it is.
 */
export function enqueueTraced<R>(
  queue: string,
  jobId: string,
  add: (carrier: JobTraceCarrier) => Promise<R>,
): Promise<R> {
  if (!isTracing()) return add({});
  const attributes = messagingAttributes('send', queue, jobId);
  return inSpan(`send ${queue}`, SpanKind.PRODUCER, attributes, () => {
    const traceparent = activeTraceParent();
    return add(traceparent === undefined ? {} : { traceparent });
  });
}

/**
 * Runs one job: timed and counted by kind and outcome, and, when this process traces, inside a
 * `process <queue>` consumer span continuing the trace that enqueued it.
 */
export async function runObservedJob<T>(kind: string, job: Job, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const span = isTracing()
    ? startSpan(
        `process ${kind}`,
        SpanKind.CONSUMER,
        {
          ...messagingAttributes('process', kind, job.id ?? ''),
          'gateway.job.attempt': job.attemptsMade + 1,
        },
        contextFrom((job.data ?? {}) as Readonly<Record<string, unknown>>),
      )
    : undefined;
  let outcome: JobOutcome = 'failed';
  let errorType: string | undefined;
  try {
    const value = await (span === undefined ? run() : withActiveSpan(span, run));
    outcome = outcomeOfReturn(value);
    return value;
  } catch (err) {
    outcome = outcomeOfError(err, job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
    if (outcome !== 'delayed') errorType = errorTypeOf(err);
    throw err;
  } finally {
    durationFor(kind, outcome).observe((performance.now() - started) / 1000);
    span?.setAttribute('gateway.job.outcome', outcome);
    endSpan(span, errorType);
  }
}

/** Counts a stalled job this worker handed back to its queue (BullMQ's `stalled` event). */
export function observeStalledJob(kind: string): void {
  stalledFor(kind).inc();
}

/** The outcome of a run that returned: the status it reports (media processors return one). */
export function outcomeOfReturn(value: unknown): JobOutcome {
  const status = (value as { status?: unknown } | null | undefined)?.status;
  if (status === 'completed' || status === 'discarded') return status;
  return 'skipped';
}

/** The outcome of a run that threw; `lastAttempt` when BullMQ will not run it again. */
export function outcomeOfError(err: unknown, lastAttempt: boolean): JobOutcome {
  if (err instanceof DelayedError) return 'delayed';
  if (err instanceof UnrecoverableError || lastAttempt) return 'failed';
  return 'retried';
}

function messagingAttributes(operation: 'send' | 'process', queue: string, jobId: string) {
  return {
    [ATTR_MESSAGING_SYSTEM]: 'bullmq',
    [ATTR_MESSAGING_OPERATION_TYPE]: operation,
    [ATTR_MESSAGING_DESTINATION_NAME]: queue,
    [ATTR_MESSAGING_MESSAGE_ID]: jobId,
  };
}
