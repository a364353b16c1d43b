/**
 * The pure parts of the observations (docs/observability.md): how upstream attempts and job runs
 * are classified, when a waiting job became due, who may read `/metrics`, and that a process
 * without `OTEL_EXPORTER_OTLP_ENDPOINT` pays nothing for traces: no span is made, the helpers hand
 * back the very function or promise they were given, and a job carries no trace context.
 */
import { DelayedError, UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import {
  enqueueTraced,
  outcomeOfError,
  outcomeOfReturn,
} from '../../../../shared/src/observability/job-observation.ts';
import { metricsAccess } from '../../../../shared/src/observability/metrics-access.ts';
import { waitingSince } from '../../../../shared/src/observability/queue-metrics.ts';
import { tracedSettlement } from '../../../../shared/src/observability/settlement-observation.ts';
import {
  activeTraceParent,
  inSpan,
  isTracing,
  SpanKind,
  startSpan,
  startTracing,
  tracedStep,
} from '../../../../shared/src/observability/tracing.ts';
import {
  startUpstreamAttempt,
  upstreamOutcome,
} from '../../../../shared/src/observability/upstream-observation.ts';

describe('upstreamOutcome', () => {
  it('classifies an attempt by its status, or by why it got none', () => {
    expect(upstreamOutcome(429, null)).toBe('429');
    expect(upstreamOutcome(500, null)).toBe('5xx');
    expect(upstreamOutcome(529, null)).toBe('5xx');
    expect(upstreamOutcome(502, null)).toBe('5xx');
    expect(upstreamOutcome(400, null)).toBe('4xx');
    expect(upstreamOutcome(422, null)).toBe('4xx');
    expect(upstreamOutcome(null, 'timeout')).toBe('timeout');
    expect(upstreamOutcome(null, 'connect_timeout')).toBe('timeout');
    expect(upstreamOutcome(null, 'connection')).toBe('connection_error');
    expect(upstreamOutcome(null, 'aborted')).toBe('aborted');
  });
});

describe('job outcomes', () => {
  it('reads a run that returned from the status it reports', () => {
    expect(outcomeOfReturn({ status: 'completed', result: {} })).toBe('completed');
    expect(outcomeOfReturn({ status: 'discarded' })).toBe('discarded');
    expect(outcomeOfReturn({ status: 'delivered' })).toBe('skipped');
    expect(outcomeOfReturn({ status: 'missing' })).toBe('skipped');
    expect(outcomeOfReturn(undefined)).toBe('skipped');
  });

  it('reads a run that threw: a poll rescheduled, a failure for good, or one BullMQ retries', () => {
    expect(outcomeOfError(new DelayedError(), false)).toBe('delayed');
    expect(outcomeOfError(new UnrecoverableError('render failed'), false)).toBe('failed');
    expect(outcomeOfError(new Error('S3 refused'), false)).toBe('retried');
    expect(outcomeOfError(new Error('S3 refused'), true)).toBe('failed');
  });
});

describe('waitingSince', () => {
  it('is when a job was added, or when the delay it waited in ran out', () => {
    expect(waitingSince({ timestamp: 1_000, processedOn: undefined, delay: 0 })).toBe(1_000);
    // Polled at 5 000, put back for 4 000 ms: due at about 9 000.
    expect(waitingSince({ timestamp: 1_000, processedOn: 5_000, delay: 4_000 })).toBe(9_000);
  });
});

describe('metricsAccess', () => {
  it('lets anyone in without a token', () => {
    expect(metricsAccess(undefined)(undefined)).toBe(true);
  });

  it('with a token, lets in its bearer only', () => {
    const allowed = metricsAccess('metrics-token-0123456789abcdef');
    expect(allowed('Bearer metrics-token-0123456789abcdef')).toBe(true);
    expect(allowed('bearer metrics-token-0123456789abcdef')).toBe(true);
    expect(allowed(undefined)).toBe(false);
    expect(allowed('Bearer metrics-token-0123456789abcde')).toBe(false);
    expect(allowed('Basic metrics-token-0123456789abcdef')).toBe(false);
    expect(allowed('Bearer metrics-token-0123456789abcdef extra')).toBe(false);
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('sets nothing up and makes no span', () => {
    expect(startTracing(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }), 'gateway-api')).toBeUndefined();
    expect(isTracing()).toBe(false);
    expect(startSpan('x', SpanKind.INTERNAL, {})).toBeUndefined();
    expect(startUpstreamAttempt('chat', 'openai', 'gpt-4o')).toBeUndefined();
    expect(activeTraceParent()).toBeUndefined();
  });

  it('hands back the hook, the promise and the settlement as they are', async () => {
    const hook = async () => undefined;
    expect(tracedStep('gateway.admission', hook)).toBe(hook);
    const running = Promise.resolve(7);
    expect(inSpan('x', SpanKind.INTERNAL, {}, () => running)).toBe(running);
    const charge = { requestId: 'req_1', model: 'demo/chat', costMicros: 5n };
    const queued = Promise.resolve();
    expect(tracedSettlement(charge, 'deferred', () => queued)).toBe(queued);
    // A settlement refused at once still throws at once (callers rely on it).
    expect(() =>
      tracedSettlement(charge, 'deferred', () => {
        throw new Error('closed');
      }),
    ).toThrow('closed');
  });

  it('enqueues a job without trace context', async () => {
    const carried = await enqueueTraced('image', 'img_1', async (carrier) => carrier);
    expect(carried).toEqual({});
  });
});
