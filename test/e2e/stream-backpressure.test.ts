/**
 * Backpressure on streamed answers (docs/chat.md, Streaming): the gateway reads the provider's next
 * bytes only once the client's socket took what it was given, so a client that stops reading
 * stops the provider's stream in the kernel's socket buffers instead of in the api's memory, and
 * gets every byte, charged once, when it reads again; one that leaves is charged what the provider
 * produced, read on to its end (docs/chat.md, "A client that leaves"). Both relays: the `/v1` translation and the
 * provider-native pass-through (`/openai/v1`).
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { billingKeys } from '../../shared/src/billing/redis-keys.ts';
import { tokenCostMicros } from '../../shared/src/billing/token-pricing.ts';
import { loadCatalogue } from '../../shared/src/catalogue/load-catalogue.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  type FundedClient,
  type GatewayWithFakes,
  sseDataLines,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

/** The provider's answer: this many chunks of `CONTENT` each, then usage and `[DONE]`. */
const CHUNKS = 24_000;
const CONTENT = 'x'.repeat(4_000);
const TOTAL_BYTES = CHUNKS * CONTENT.length;
const USAGE = { prompt_tokens: 7, completion_tokens: CHUNKS, total_tokens: 7 + CHUNKS };

/** How far the provider got with its answer, and whether the gateway closed its request. */
interface Progress {
  written: number;
  finished: boolean;
  closed: boolean;
}
let progress: Progress;
let provider: FakeUpstream;
let g: GatewayWithFakes;
let funded: FundedClient;

/** One event of an OpenAI chat completion stream. */
function chunkLine(delta: Record<string, unknown>, finishReason: string | null, usage?: unknown): string {
  const choices = [{ index: 0, delta, finish_reason: finishReason }];
  const chunk = { id: 'cmpl-bp', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices };
  return `data: ${JSON.stringify(usage === undefined ? chunk : { ...chunk, usage })}\n\n`;
}

/** Writes as fast as the gateway reads: each write past the socket's buffer waits for `drain`. */
async function streamLargeAnswer(response: ServerResponse): Promise<void> {
  response.on('close', () => {
    progress.closed = true;
  });
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const line = chunkLine({ content: CONTENT }, null);
  for (let i = 0; i < CHUNKS; i += 1) {
    if (response.destroyed) return;
    progress.written += CONTENT.length;
    if (!response.write(line)) await drainedOrClosed(response);
  }
  response.end(`${chunkLine({}, 'stop', USAGE)}data: [DONE]\n\n`);
  progress.finished = true;
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      response.off('drain', go);
      response.off('close', go);
      resolve();
    };
    response.on('drain', go);
    response.on('close', go);
  });
}

beforeAll(async () => {
  provider = await startFakeUpstream((_request, response) => streamLargeAnswer(response));
  g = await startGatewayWithFakes({ env: { OPENAI_BASE_URL: provider.url } });
  funded = await g.fundedClient({ topUp: 10_000_000 });
});
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
  await g.close();
  await provider.close();
});
beforeEach(() => {
  progress = { written: 0, finished: false, closed: false };
});

/** A streamed request whose answer nobody reads yet (Node's client stops reading its socket). */
async function openUnread(path: string, body: Record<string, unknown>): Promise<IncomingMessage> {
  const request = httpRequest(`${g.gateway.origin}${path}`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${funded.key}`, 'content-type': 'application/json' },
  });
  request.end(JSON.stringify(body));
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  expect(response.statusCode).toBe(200);
  return response;
}

/** Waits until the provider's progress has not moved for half a second; returns where it stopped. */
async function providerStalls(): Promise<number> {
  let last = -1;
  let still = 0;
  for (let polls = 0; polls < 200 && still < 5; polls += 1) {
    await sleep(100);
    still = progress.written === last ? still + 1 : 0;
    last = progress.written;
  }
  return last;
}

async function readAll(response: IncomingMessage): Promise<string> {
  response.setEncoding('utf8');
  let text = '';
  for await (const part of response) text += part;
  return text;
}

const V1_BODY = {
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'a long answer, please' }],
  stream: true,
  stream_options: { include_usage: true },
};

describe('a client that stops reading a stream', () => {
  it('/v1: the provider is held at a fraction of its answer; reading again delivers every chunk, charged once', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const response = await openUnread('/v1/chat/completions', V1_BODY);
    const heldAt = await providerStalls();
    // What the socket buffers of the two connections take before the provider waits (8–10 MB
    // here); the answer is about ten times that. Without backpressure the whole answer is read.
    expect(progress.finished).toBe(false);
    expect(heldAt).toBeLessThan(TOTAL_BYTES / 2);

    const lines = sseDataLines(await readAll(response));
    expect(progress.finished).toBe(true);
    const chunks = lines.filter((line) => line !== '[DONE]' && line.object === 'chat.completion.chunk');
    type Chunk = { choices: Array<{ delta?: { content?: string } }>; usage?: unknown; service?: unknown };
    const text = (chunks as Chunk[]).map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text.length).toBe(TOTAL_BYTES);
    expect(lines.at(-1)).toBe('[DONE]');
    const usageChunk = (chunks as Chunk[]).find((chunk) => chunk.usage);
    expect(usageChunk?.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: CHUNKS });
    const service = usageChunk?.service as { cost: number };
    const charged = before - (await g.balanceMicros(funded.accountId));
    expect(charged).toBe(BigInt(Math.round(service.cost * 1e6)));
    expect(charged).toBeGreaterThan(0n);
  });

  it('/openai/v1 (passed through): held the same way, then every byte, charged once', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const response = await openUnread('/openai/v1/chat/completions', { ...V1_BODY, model: 'gpt-4o' });
    const heldAt = await providerStalls();
    expect(progress.finished).toBe(false);
    expect(heldAt).toBeLessThan(TOTAL_BYTES / 2);

    const text = await readAll(response);
    expect(progress.finished).toBe(true);
    expect(text.split(CONTENT).length - 1).toBe(CHUNKS);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const cost = BigInt(Math.round(Number(response.trailers['x-service-cost']) * 1e6));
    expect(cost).toBeGreaterThan(0n);
    expect(before - (await g.balanceMicros(funded.accountId))).toBe(cost);
  });

  it('leaving while held, after output: the provider is read to its end (STREAM_DRAIN_MS) and its usage charged once', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const holds = billingKeys(`${g.gateway.config.queues.prefix}:billing:`).walletHolds(funded.accountId);
    const heldTotal = async () => Number((await redis.hget(holds.amounts, 'total')) ?? '0');
    const redis = createRedis(g.gateway.config.redis);
    try {
      const response = await openUnread('/v1/chat/completions', V1_BODY);
      await providerStalls();
      expect(await heldTotal()).toBeGreaterThan(0);
      response.destroy();
      for (let polls = 0; polls < 200 && !progress.closed; polls += 1) await sleep(50);
      expect(progress.closed).toBe(true);
      // Read on, not cut: the provider's whole answer, and its usage, reached the gateway.
      expect(progress.finished).toBe(true);
      for (let polls = 0; polls < 100 && (await heldTotal()) > 0; polls += 1) await sleep(50);
      expect(await heldTotal()).toBe(0);
      const model = loadCatalogue().get('openai/gpt-4o');
      if (model === undefined) throw new Error('no openai/gpt-4o in the catalogue');
      const usage = { inputTokens: 7, cachedInputTokens: 0, outputTokens: CHUNKS, reasoningTokens: 0 };
      expect(before - (await g.balanceMicros(funded.accountId))).toBe(tokenCostMicros(model.pricing, usage));
    } finally {
      redis.disconnect();
    }
  });
});
