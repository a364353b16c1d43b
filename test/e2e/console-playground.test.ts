/**
 * The console's playground over real HTTP against a listening gateway and a stalling
 * OpenAI-compatible upstream (as Mistral): a stream relayed through `/console/api/playground`
 * arrives chunk by chunk, and a page that goes away mid-stream has the upstream read on for at
 * most STREAM_DRAIN_MS, then cut and charged the output relayed, as a `/v1` client's would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { type GatewayWithFakes, startGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';
import { type Holder, newHolder } from '../integration/api/console/console-client.ts';

let staller: FakeUpstream;
let closed = 0;
let g: GatewayWithFakes;
let holder: Holder;

beforeAll(async () => {
  // Streams two chunks, then nothing more: only the gateway can end the request.
  staller = await startFakeUpstream((_request, response) => {
    response.on('close', () => {
      closed += 1;
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    response.write(chunk('Echo: ') + chunk('first words'));
  });
  g = await startGatewayWithFakes({
    env: {
      MISTRAL_BASE_URL: `${staller.url}/v1`,
      MISTRAL_API_KEY: 'test-mistral-key',
      STREAM_DRAIN_MS: '500',
    },
  });
  holder = await newHolder(g.gateway.app, { topUp: 1_000 });
});
afterAll(async () => {
  await g?.close();
  await staller?.close();
});

describe('the playground over HTTP', () => {
  it('relays a stream as it comes, and cuts the upstream call within the drain bound when the page goes away', async () => {
    const controller = new AbortController();
    const response = await fetch(`${g.gateway.origin}/console/api/playground/v1/chat/completions`, {
      method: 'POST',
      headers: {
        cookie: `gw_session=${holder.agent.cookie}`,
        'x-csrf-token': holder.agent.csrfToken ?? '',
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        model: 'mistral/mistral-small-latest',
        messages: [{ role: 'user', content: 'stream then stall' }],
        stream: true,
      }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let text = '';
    while (!text.includes('first words')) text += (await reader.read()).value ?? '';
    const closedBefore = closed;
    const started = Date.now();
    controller.abort();
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(closedBefore + 1);
    // Read on for STREAM_DRAIN_MS (500 ms here) after the page left, then cut.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The upstream produced output and reported no usage: what was relayed is charged, as for a
    // /v1 client (docs/chat.md, "A client that leaves").
    const balance = await g.balance(holder.accountId);
    expect(balance).toBeLessThan(1_000);
    expect(balance).toBeGreaterThan(999);
  });
});
