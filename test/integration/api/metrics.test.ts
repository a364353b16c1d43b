/**
 * Prometheus metrics of the api (docs/observability.md): after real traffic through the gateway
 * (OpenAI and Anthropic fakes, `/v1` and the native `/anthropic` prefix, a fallback, a stream,
 * refusals, an image job no worker takes), one scrape of `/metrics` holds every family with the
 * values that traffic implies — tokens and cost equal to what the answers reported and the ledger
 * holds. Access: `METRICS_TOKEN` as a bearer on the api's port (404 there without one), and the
 * separate metrics server of `METRICS_PORT`. No label carries a key, account or request id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { startMetricsServer } from '../../../shared/src/observability/metrics-server.ts';
import type { ProcessObservability } from '../../../shared/src/observability/process-observability.ts';
import { startProcessObservability } from '../../../shared/src/observability/process-observability.ts';
import { createFundedKey } from '../../helpers/admin-client.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import {
  abandonable,
  type FundedClient,
  type GatewayWithFakes,
  rawPost,
  serviceOf,
  startGatewayWithFakes,
} from '../../helpers/gateway-with-fakes.ts';
import { parsePrometheusText, type Scrape } from '../../helpers/prometheus-text.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

const TOKEN = 'metrics-token-0123456789abcdefghij';
const MEDIA_WAIT_MS = 400;

let g: GatewayWithFakes;
let funded: FundedClient;
let observability: ProcessObservability;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  g = await startGatewayWithFakes({
    env: {
      METRICS_TOKEN: TOKEN,
      METRICS_PORT: String(metricsPort),
      MEDIA_WAIT_TIMEOUT_MS: String(MEDIA_WAIT_MS),
      // A wallet floor of 1 Toman: an empty wallet is refused (insufficient_quota).
      MIN_REQUIRED_BALANCE: '1',
    },
  });
  // What the api's main starts besides the app: here the metrics-only server of METRICS_PORT.
  observability = await startProcessObservability(g.gateway.config, 'api', captureLogger().logger);
  funded = await g.fundedClient();
});
afterAll(async () => {
  await observability?.close();
  await g?.close();
});

async function scrape(
  origin: string,
  authorization?: string,
): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${origin}/metrics`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

describe('after traffic, one scrape holds every family with sane values', () => {
  let metrics: Scrape;
  let text: string;
  const usage = { input: 0, output: 0, costMicros: 0n };
  let anthropicUsage = { input: 0, output: 0 };
  let imageStatus = 0;
  let unknownKeyStatus = 0;

  beforeAll(async () => {
    const chat = () =>
      funded.client.chat.completions.create({
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: 'Hello' }],
      });
    const count = (completion: Awaited<ReturnType<typeof chat>>) => {
      usage.input += completion.usage?.prompt_tokens ?? 0;
      usage.output += completion.usage?.completion_tokens ?? 0;
      usage.costMicros += BigInt(Math.round(serviceOf(completion).cost * 1e6));
    };
    count(await chat());
    g.openai.script.next({ kind: 'status', status: 500 });
    count(await chat()); // the first route fails with 500, the second answers
    g.openai.script.next({ kind: 'status', status: 429 });
    count(await chat()); // 429, then the second route

    const stream = await funded.client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Hello stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      if (chunk.usage) {
        usage.input += chunk.usage.prompt_tokens;
        usage.output += chunk.usage.completion_tokens;
        usage.costMicros += BigInt(Math.round(serviceOf(chunk).cost * 1e6));
      }
    }

    const native = await fetch(`${g.gateway.origin}/anthropic/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': funded.key,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hello native' }],
      }),
    });
    expect(native.status).toBe(200);
    const nativeBody = (await native.json()) as { usage: { input_tokens: number; output_tokens: number } };
    anthropicUsage = { input: nativeBody.usage.input_tokens, output: nativeBody.usage.output_tokens };

    unknownKeyStatus = (await rawPost(g.gateway.origin, '/v1/chat/completions', 'hk-not-a-key', '{}')).status;
    const broke = await createFundedKey(g.gateway.app, { topUp: 0 });
    const chatBody = JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect((await rawPost(g.gateway.origin, '/v1/chat/completions', broke.key, chatBody)).status).toBe(402);
    const limited = await createFundedKey(g.gateway.app, {
      topUp: 1000,
      settings: { allowed_models: ['openai/gpt-4o-mini'] },
    });
    expect((await rawPost(g.gateway.origin, '/v1/chat/completions', limited.key, chatBody)).status).toBe(403);
    expect((await fetch(`${g.gateway.origin}/v1/no-such-route`)).status).toBe(404);

    // No worker runs here: the image job stays waiting in its queue after the api gave up on it.
    const image = await rawPost(
      g.gateway.origin,
      '/v1/images/generations',
      funded.key,
      JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a lighthouse' }),
    );
    imageStatus = image.status;

    await g.balanceMicros(funded.accountId); // the group commit wrote every queued charge
    // A request is counted when its answer has finished on the server, after its onResponse work
    // (the 504's hold release is a Redis call): the client can read the answer first. Scrape until
    // the last request is counted.
    const deadline = Date.now() + 5_000;
    for (;;) {
      const res = await scrape(g.gateway.origin, `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      text = res.text;
      metrics = parsePrometheusText(text);
      const counted = metrics.value('gateway_http_requests_total', { route: '/v1/images/generations' });
      if (counted > 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('declares every family', () => {
    const expected = {
      gateway_http_requests_total: 'counter',
      gateway_http_request_duration_seconds: 'histogram',
      gateway_model_request_duration_seconds: 'histogram',
      gateway_time_to_first_token_seconds: 'histogram',
      gateway_upstream_attempts_total: 'counter',
      gateway_upstream_fallbacks_total: 'counter',
      gateway_admission_refusals_total: 'counter',
      gateway_tokens_total: 'counter',
      gateway_cost_micro_irt_total: 'counter',
      gateway_settlement_backlog: 'gauge',
      gateway_settlement_batch_size: 'histogram',
      gateway_settlement_batch_duration_seconds: 'histogram',
      gateway_settlement_batches_total: 'counter',
      gateway_queue_jobs: 'gauge',
      gateway_queue_oldest_waiting_seconds: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      nodejs_eventloop_lag_seconds: 'gauge',
    };
    for (const [family, type] of Object.entries(expected))
      expect(metrics.families.get(family), family).toBe(type);
  });

  it('counts requests by route, method and status, native prefixes included', () => {
    const chat = { route: '/v1/chat/completions', method: 'POST' };
    expect(metrics.value('gateway_http_requests_total', { ...chat, status: '200' })).toBe(4);
    expect(unknownKeyStatus).toBe(401);
    expect(metrics.value('gateway_http_requests_total', { ...chat, status: '401' })).toBe(1);
    expect(metrics.value('gateway_http_requests_total', { ...chat, status: '402' })).toBe(1);
    expect(metrics.value('gateway_http_requests_total', { ...chat, status: '403' })).toBe(1);
    expect(
      metrics.value('gateway_http_requests_total', { route: '/anthropic/v1/messages', status: '200' }),
    ).toBe(1);
    expect(
      metrics.value('gateway_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }),
    ).toBe(1);
    expect(imageStatus).toBe(504);
    expect(
      metrics.value('gateway_http_requests_total', { route: '/v1/images/generations', status: '504' }),
    ).toBe(1);
  });

  it('measures latency by route and by model, and the time to first token of streams', () => {
    const byRoute = { route: '/v1/chat/completions' };
    expect(metrics.value('gateway_http_request_duration_seconds_count', byRoute)).toBe(7);
    const sum = metrics.value('gateway_http_request_duration_seconds_sum', byRoute);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(60);
    // By model: the admitted requests only (the four answered chats; refusals were not admitted).
    const gpt4o = { model: 'openai/gpt-4o' };
    expect(metrics.value('gateway_model_request_duration_seconds_count', gpt4o)).toBe(4);
    expect(
      metrics.value('gateway_model_request_duration_seconds_count', { model: 'anthropic/claude-sonnet-4-5' }),
    ).toBe(1);
    const bucket = metrics.matching('gateway_model_request_duration_seconds_bucket', {
      ...gpt4o,
      le: '+Inf',
    });
    expect(bucket[0]?.value).toBe(4);
    expect(metrics.value('gateway_time_to_first_token_seconds_count', gpt4o)).toBe(1);
    const firstToken = metrics.value('gateway_time_to_first_token_seconds_sum', gpt4o);
    expect(firstToken).toBeGreaterThan(0);
    expect(firstToken).toBeLessThan(metrics.value('gateway_model_request_duration_seconds_sum', gpt4o));
  });

  it('counts upstream attempts by provider and outcome, and the fallbacks taken', () => {
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'openai', outcome: 'ok' })).toBe(4);
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'openai', outcome: '5xx' })).toBe(1);
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'openai', outcome: '429' })).toBe(1);
    expect(metrics.value('gateway_upstream_fallbacks_total', { provider: 'openai' })).toBe(2);
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'anthropic', outcome: 'ok' })).toBe(
      1,
    );
  });

  it('counts admission refusals by reason', () => {
    expect(metrics.value('gateway_admission_refusals_total', { reason: 'invalid_api_key' })).toBe(1);
    expect(metrics.value('gateway_admission_refusals_total', { reason: 'insufficient_quota' })).toBe(1);
    expect(metrics.value('gateway_admission_refusals_total', { reason: 'model_not_allowed' })).toBe(1);
  });

  it('counts tokens and cost by model and provider, equal to what the answers reported', async () => {
    const openai = { model: 'openai/gpt-4o', provider: 'openai' };
    expect(metrics.value('gateway_tokens_total', { ...openai, direction: 'input' })).toBe(usage.input);
    expect(metrics.value('gateway_tokens_total', { ...openai, direction: 'output' })).toBe(usage.output);
    expect(metrics.value('gateway_cost_micro_irt_total', openai)).toBe(Number(usage.costMicros));
    const anthropic = { model: 'anthropic/claude-sonnet-4-5', provider: 'anthropic' };
    expect(metrics.value('gateway_tokens_total', { ...anthropic, direction: 'input' })).toBe(
      anthropicUsage.input,
    );
    expect(metrics.value('gateway_tokens_total', { ...anthropic, direction: 'output' })).toBe(
      anthropicUsage.output,
    );
    // Every charge the metrics counted is in the ledger, and nothing else was charged.
    const charged = (await g.gateway.services.billing.listLedger(funded.accountId, { limit: 100 }))
      .filter((entry) => entry.kind === 'charge')
      .reduce((sum, entry) => sum + (entry.amountMicros < 0n ? -entry.amountMicros : entry.amountMicros), 0n);
    const counted =
      metrics.value('gateway_cost_micro_irt_total', openai) +
      metrics.value('gateway_cost_micro_irt_total', anthropic);
    expect(BigInt(counted)).toBe(charged);
  });

  it('reports the settlement backlog and batch sizes', () => {
    expect(metrics.value('gateway_settlement_backlog')).toBe(0);
    // Five charges (four chats, one native call), written in one batch or more.
    expect(metrics.value('gateway_settlement_batch_size_sum')).toBe(5);
    const batches = metrics.value('gateway_settlement_batch_size_count');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(metrics.value('gateway_settlement_batches_total', { outcome: 'written' })).toBe(batches);
    expect(metrics.value('gateway_settlement_batch_duration_seconds_count')).toBe(batches);
  });

  it('reads queue depth and the oldest waiting job from BullMQ at scrape time', async () => {
    expect(metrics.value('gateway_queue_jobs', { queue: 'image', state: 'waiting' })).toBe(1);
    expect(metrics.value('gateway_queue_jobs', { queue: 'video', state: 'waiting' })).toBe(0);
    const age = metrics.value('gateway_queue_oldest_waiting_seconds', { queue: 'image' });
    expect(age).toBeGreaterThanOrEqual(MEDIA_WAIT_MS / 1000 - 0.05);
    expect(age).toBeLessThan(60);
    expect(metrics.value('gateway_queue_oldest_waiting_seconds', { queue: 'speech' })).toBe(0);
    // Read again at the next scrape: the job has waited longer.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = parsePrometheusText((await scrape(g.gateway.origin, `Bearer ${TOKEN}`)).text);
    expect(again.value('gateway_queue_oldest_waiting_seconds', { queue: 'image' })).toBeGreaterThan(age);
  });

  it('carries no key, account or request id in any label', () => {
    for (const id of [funded.key, funded.keyId, funded.accountId]) expect(text).not.toContain(id);
    expect(text).not.toMatch(/req_[A-Za-z0-9_-]{8,}/);
    for (const sample of metrics.samples) {
      for (const value of Object.values(sample.labels)) expect(value.length).toBeLessThan(80);
    }
  });
});

describe('a client that goes away before its answer ended', () => {
  it('counts its request once, as 499, whether it left waiting or in the middle of a stream', async () => {
    const read = async () => parsePrometheusText((await scrape(g.gateway.origin, `Bearer ${TOKEN}`)).text);
    const chat = { route: '/v1/chat/completions', method: 'POST' };
    const count = (scrape: Scrape, status: string) =>
      scrape.value('gateway_http_requests_total', { ...chat, status });
    const before = await read();
    const own = await g.fundedClient();
    // Waiting for a slow answer, then gone.
    g.openai.script.next({ kind: 'slow', delayMs: 3_000 });
    const sent = g.openai.requests.length;
    const waiting = abandonable(own.client, 'openai/gpt-4o', 'left waiting');
    await expect.poll(() => g.openai.requests.length).toBe(sent + 1);
    waiting.controller.abort();
    expect(await waiting.pending).toBeInstanceOf(Error);
    // Reading a stream that stalls after its first events, then gone.
    g.openai.script.next({ kind: 'stall-mid-stream', afterEvents: 2 });
    const reading = new AbortController();
    const stream = await own.client.chat.completions.create(
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'left reading' }], stream: true },
      { signal: reading.signal },
    );
    await (async () => {
      for await (const _chunk of stream) reading.abort();
    })().catch((err: unknown) => err);
    await expect.poll(async () => count(await read(), '499') - count(before, '499')).toBe(2);
    const after = await read();
    expect(count(after, '200')).toBe(count(before, '200'));
    expect(count(after, '502')).toBe(count(before, '502'));
  });
});

describe('access to /metrics', () => {
  it('on the api port: the METRICS_TOKEN bearer only (401 in the error format otherwise)', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token-wrong', `Basic ${TOKEN}`]) {
      const res = await scrape(g.gateway.origin, authorization);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({
        error: {
          message: 'A valid metrics token is required.',
          type: 'invalid_api_key',
          code: 'invalid_metrics_token',
          param: null,
        },
      });
    }
    const ok = await scrape(g.gateway.origin, `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.type).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('on the METRICS_PORT server: the token too when one is set; other paths and methods 404', async () => {
    const origin = `http://127.0.0.1:${metricsPort}`;
    expect((await scrape(origin)).status).toBe(401);
    const ok = await scrape(origin, `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(parsePrometheusText(ok.text).families.get('gateway_http_requests_total')).toBe('counter');
    const other = await fetch(`${origin}/v1/models`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const post = await fetch(`${origin}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(404);
  });

  it('without METRICS_TOKEN: 404 on the api port, served openly on the metrics port only', async () => {
    const t = await buildTestApp();
    const port = await freePort();
    const server = await startMetricsServer(
      { token: undefined, host: '127.0.0.1', port },
      captureLogger().logger,
    );
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
      const open = await scrape(`http://127.0.0.1:${port}`);
      expect(open.status).toBe(200);
      expect(open.text).toContain('# TYPE gateway_http_requests_total counter');
    } finally {
      await server.close();
      await t.close();
    }
  });

  it('the metrics port refuses to start on a port already taken', async () => {
    await expect(
      startMetricsServer({ token: undefined, host: '127.0.0.1', port: metricsPort }, captureLogger().logger),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
