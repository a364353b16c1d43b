/**
 * OpenTelemetry traces (docs/observability.md), exported over OTLP/HTTP to a real receiver: the
 * api in this process and a worker PROCESS, both with `OTEL_EXPORTER_OTLP_ENDPOINT`. A chat whose
 * first route fails gives one trace: the request's server span, its admission, one GenAI client
 * span per upstream attempt (the failed one marked and followed by the fallback) and the
 * settlement, with the GenAI summary (model, provider, usage) on the request. A video gives one
 * trace across both processes: the request, the enqueue (producer), the worker's run (consumer,
 * continuing the trace carried in the job), its provider attempt, the store and the settlement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ProcessObservability,
  startProcessObservability,
} from '../../../../shared/src/observability/process-observability.ts';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from '../../../fakes/otlp-receiver.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import {
  abandonable,
  type FundedClient,
  type GatewayWithFakes,
  rawPost,
  startGatewayWithFakes,
} from '../../../helpers/gateway-with-fakes.ts';
import { type SpawnedEntry, spawnEntry } from '../../../helpers/spawn-entry.ts';
import { storeEnvironmentOf, testConfig, testEnvironment } from '../../../helpers/test-config.ts';

let receiver: OtlpReceiver;
let observability: ProcessObservability;
let g: GatewayWithFakes;
let funded: FundedClient;
let worker: SpawnedEntry | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  // As the api's main does: traces set up before the app is built.
  observability = await startProcessObservability(testConfig(env), 'api', captureLogger().logger);
  g = await startGatewayWithFakes({ env });
  funded = await g.fundedClient();
});
afterAll(async () => {
  if (worker !== undefined && worker.child.exitCode === null) {
    worker.child.kill('SIGTERM');
    await worker.exited(10_000);
  }
  await g?.close();
  await observability?.close();
  await receiver?.close();
  expect(receiver.problems).toEqual([]);
});

const byId = (spans: readonly ReceivedSpan[], spanId: string) => spans.find((span) => span.spanId === spanId);
const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
const serverSpanOf = (spans: readonly ReceivedSpan[], requestId: string | null) =>
  spans.find((span) => span.kind === SPAN_KIND.server && span.attributes['gateway.request.id'] === requestId);

describe('a chat request whose first route fails', () => {
  let spans: ReceivedSpan[];
  let server: ReceivedSpan;
  let usage: { prompt_tokens: number; completion_tokens: number };
  let costMicros: number;

  beforeAll(async () => {
    g.openai.script.next({ kind: 'status', status: 500 });
    const answer = await rawPost(
      g.gateway.origin,
      '/v1/chat/completions',
      funded.key,
      JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
    );
    expect(answer.status).toBe(200);
    usage = answer.json.usage as typeof usage;
    costMicros = Math.round((answer.json.service as { cost: number }).cost * 1e6);
    const requestId = answer.headers.get('x-request-id');
    spans = await receiver.waitFor((received) => {
      const root = serverSpanOf(received, requestId);
      return root !== undefined && childrenOf(received, root).some((span) => span.name === 'gateway.settle');
    });
    server = serverSpanOf(spans, requestId) as ReceivedSpan;
  });

  it('is one trace rooted at the request span of the api', () => {
    expect(server).toMatchObject({
      service: 'gateway-api',
      name: 'POST /v1/chat/completions',
      parentSpanId: '',
      statusCode: 0,
    });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
    });
  });

  it('has the admission under the request', () => {
    const names = childrenOf(spans, server).map((span) => span.name);
    expect(names).toContain('gateway.authenticate');
    expect(names).toContain('gateway.admission');
    const admission = childrenOf(spans, server).find((span) => span.name === 'gateway.admission');
    expect(admission?.kind).toBe(SPAN_KIND.internal);
  });

  it('has one GenAI client span per upstream attempt: the failure, then the fallback that answered', () => {
    const attempts = childrenOf(spans, server).filter((span) => span.kind === SPAN_KIND.client);
    expect(attempts.map((span) => span.name)).toEqual(['chat gpt-4o', 'chat gpt-4o-2024-08-06']);
    const [failed, served] = attempts as [ReceivedSpan, ReceivedSpan];
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gateway.upstream.outcome': '5xx',
      'gateway.upstream.fallback': true,
      'error.type': '5xx',
    });
    expect(failed.statusCode).toBe(2);
    expect(served.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o-2024-08-06',
      'gateway.upstream.outcome': 'ok',
      'gateway.upstream.fallback': false,
    });
    expect(served.statusCode).toBe(0);
  });

  it('has the settlement under the request, and the GenAI summary on the request', () => {
    const settle = childrenOf(spans, server).find((span) => span.name === 'gateway.settle');
    expect(settle?.attributes).toMatchObject({
      'gateway.settlement.mode': 'deferred',
      'gateway.model': 'openai/gpt-4o',
      'gateway.cost_micro_irt': costMicros,
    });
    expect(server.attributes).toMatchObject({
      'gen_ai.response.model': 'openai/gpt-4o',
      'gen_ai.provider.name': 'openai',
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'gateway.cost_micro_irt': costMicros,
    });
  });

  it('continues the trace of a client that sends a traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const answer = await fetch(`${g.gateway.origin}/v1/models`, {
      headers: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id');
    const received = await receiver.waitFor((all) => serverSpanOf(all, requestId) !== undefined);
    expect(serverSpanOf(received, requestId)).toMatchObject({
      traceId,
      parentSpanId: parent,
      name: 'GET /v1/models',
    });
  });
});

describe('a request whose client goes away before the answer', () => {
  it('ends its server span as client_closed_request, its upstream attempt as aborted', async () => {
    g.openai.script.next({ kind: 'slow', delayMs: 3_000 });
    const sent = g.openai.requests.length;
    const { controller, pending } = abandonable(funded.client, 'openai/gpt-4o', 'left waiting');
    await expect.poll(() => g.openai.requests.length).toBe(sent + 1);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const isGone = (span: ReceivedSpan) =>
      span.kind === SPAN_KIND.server && span.attributes['error.type'] === 'client_closed_request';
    const spans = await receiver.waitFor((received) => received.some(isGone));
    const server = spans.find(isGone) as ReceivedSpan;
    expect(server).toMatchObject({ name: 'POST /v1/chat/completions', statusCode: 2 });
    const attempt = childrenOf(spans, server).find((span) => span.kind === SPAN_KIND.client);
    expect(attempt?.attributes).toMatchObject({
      'gateway.upstream.outcome': 'aborted',
      'gateway.upstream.fallback': false,
    });
  });
});

describe('token counts on the native APIs', () => {
  async function attemptOf(path: string, headers: Record<string, string>, body: unknown) {
    const res = await fetch(`${g.gateway.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const spans = await receiver.waitFor((received) => {
      const root = serverSpanOf(received, requestId);
      return root !== undefined && childrenOf(received, root).some((span) => span.kind === SPAN_KIND.client);
    });
    const root = serverSpanOf(spans, requestId) as ReceivedSpan;
    return childrenOf(spans, root).find((span) => span.kind === SPAN_KIND.client);
  }

  it('names the upstream span of Anthropic count_tokens and Gemini countTokens count_tokens', async () => {
    const messages = [{ role: 'user', content: 'How many tokens?' }];
    const anthropic = await attemptOf(
      '/anthropic/v1/messages/count_tokens',
      { 'x-api-key': funded.key },
      { model: 'anthropic/claude-sonnet-4-5', messages },
    );
    expect(anthropic?.name).toMatch(/^count_tokens claude-sonnet-4-5/);
    expect(anthropic?.attributes).toMatchObject({ 'gen_ai.operation.name': 'count_tokens' });
    const gemini = await attemptOf(
      '/gemini/v1beta/models/gemini-2.5-flash:countTokens',
      { 'x-goog-api-key': funded.key },
      { contents: [{ role: 'user', parts: [{ text: 'How many tokens?' }] }] },
    );
    expect(gemini?.name).toMatch(/^count_tokens gemini-2\.5-flash/);
    expect(gemini?.attributes).toMatchObject({ 'gen_ai.operation.name': 'count_tokens' });
  });
});

describe('a video job, across the api and a worker process', () => {
  let spans: ReceivedSpan[];
  let server: ReceivedSpan;
  let videoId: string;

  beforeAll(async () => {
    const { config } = g.gateway;
    worker = spawnEntry(
      'workers/src/main.ts',
      testEnvironment({
        LOG_LEVEL: 'info',
        ...storeEnvironmentOf(config),
        S3_BUCKET: config.s3.bucket,
        QUEUE_PREFIX: config.queues.prefix,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        DEMO_VIDEO_RENDER_MS: '0',
      }),
    );
    await worker.waitFor(/worker ready/);
    const created = await rawPost(
      g.gateway.origin,
      '/v1/videos',
      funded.key,
      JSON.stringify({ model: 'demo/video', prompt: 'waves', duration: 4 }),
    );
    expect(created.status).toBe(202);
    videoId = String(created.json.id);
    const requestId = created.headers.get('x-request-id');
    const deadline = Date.now() + 15_000;
    let status = 'in_progress';
    while (status === 'in_progress' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const polled = await fetch(`${g.gateway.origin}/v1/videos/${videoId}`, {
        headers: { authorization: `Bearer ${funded.key}` },
      });
      status = ((await polled.json()) as { status: string }).status;
    }
    expect(status).toBe('completed');
    spans = await receiver.waitFor((received) => {
      const root = serverSpanOf(received, requestId);
      if (root === undefined) return false;
      const inTrace = received.filter((span) => span.traceId === root.traceId);
      return ['gateway.store', 'gateway.settle'].every((name) =>
        inTrace.some((span) => span.name === name && span.service === 'gateway-worker'),
      );
    });
    server = serverSpanOf(spans, requestId) as ReceivedSpan;
  });

  it('enqueues under the request (a producer span) and runs under the enqueue (a consumer span in the worker)', () => {
    expect(server.name).toBe('POST /v1/videos');
    const enqueue = childrenOf(spans, server).find((span) => span.kind === SPAN_KIND.producer);
    expect(enqueue).toMatchObject({ name: 'send video', service: 'gateway-api' });
    expect(enqueue?.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'video',
      'messaging.message.id': videoId,
    });
    const runs = childrenOf(spans, enqueue as ReceivedSpan);
    expect(runs.map((span) => [span.name, span.kind, span.service])).toEqual([
      ['process video', SPAN_KIND.consumer, 'gateway-worker'],
    ]);
    expect(runs[0]?.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'messaging.message.id': videoId,
      'gateway.job.outcome': 'completed',
      'gateway.job.attempt': 1,
      'gen_ai.response.model': 'demo/video',
      'gen_ai.provider.name': 'demo',
    });
  });

  it('has the provider attempt, the store and the settlement under the worker run', () => {
    const run = spans.find((span) => span.name === 'process video' && span.traceId === server.traceId);
    const steps = childrenOf(spans, run as ReceivedSpan);
    const attempt = steps.find((span) => span.kind === SPAN_KIND.client);
    expect(attempt).toMatchObject({ name: 'generate_content demo-video' });
    expect(attempt?.attributes).toMatchObject({
      'gen_ai.provider.name': 'demo',
      'gateway.upstream.outcome': 'ok',
    });
    const store = steps.find((span) => span.name === 'gateway.store');
    expect(store?.attributes).toMatchObject({
      'aws.s3.key': expect.stringMatching(new RegExp(`^jobs/${videoId}/[0-9a-f]{12}/video\\.mp4$`)),
    });
    const settle = steps.find((span) => span.name === 'gateway.settle');
    expect(settle?.attributes).toMatchObject({
      'gateway.settlement.mode': 'direct',
      'gateway.model': 'demo/video',
    });
    expect(Number(settle?.attributes['gateway.cost_micro_irt'])).toBeGreaterThan(0);
  });

  it('links every span of the trace to a parent in it, up to the request', () => {
    const trace = spans.filter((span) => span.traceId === server.traceId);
    for (const span of trace) {
      if (span === server) continue;
      expect(byId(trace, span.parentSpanId), `${span.name} has its parent in the trace`).toBeDefined();
    }
  });
});
