/**
 * Streams that break after the 200 status was sent (spec, Events): the failure is the event
 * `data: {"error": {message, type, code}}` with the provider's HTTP status as a number, then
 * `data: [DONE]`, and nothing is charged. A client that goes away (docs/chat.md, "A client that
 * leaves"): before any output the upstream request is aborted at once and only what it reported is
 * charged; after output the gateway reads the upstream on, for up to `STREAM_DRAIN_MS`, to the
 * usage it reports, and charges that once; an upstream still streaming then is cut and charged what
 * was read (its reported input, else estimated; output counted from the text it produced).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../../shared/src/observability/registry.ts';
import { buildMessage, fakeRequestSchema } from '../fakes/anthropic-upstream-answer.ts';
import type { FakeBehaviour } from '../fakes/fake-behaviour.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  abandonable,
  bodyOf,
  collectChatStream,
  type FundedClient,
  type GatewayWithFakes,
  rawPost,
  sseDataLines,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

let g: GatewayWithFakes;
let funded: FundedClient;
/**
 * An OpenAI-compatible upstream (as Mistral) that streams two chunks then stalls, or never answers
 * a non-streamed request; it counts the requests the gateway closed. Asked for `ONE_READ`, it
 * sends the two chunks and an error event in one write and ends.
 */
let staller: FakeUpstream;
let stallerClosed = 0;

beforeAll(async () => {
  staller = await startFakeUpstream((request, response) => {
    response.on('close', () => {
      stallerClosed += 1;
    });
    // A non-streamed request is never answered at all.
    if (bodyOf(request).stream !== true) return;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (request.body.includes(NO_OUTPUT)) {
      response.flushHeaders();
      return;
    }
    const chunk = (delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: 'cmpl-stall', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const chunks = chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Echo: ' });
    if (request.body.includes(ONE_READ)) {
      const error = { error: { message: 'Service unavailable.', type: 'server_error', code: null } };
      response.end(`${chunks}data: ${JSON.stringify(error)}\n\n`);
      return;
    }
    response.write(chunks);
  });
  g = await startGatewayWithFakes({
    env: {
      MISTRAL_BASE_URL: `${staller.url}/v1`,
      MISTRAL_API_KEY: 'test-mistral-key',
      STREAM_DRAIN_MS: String(DRAIN_MS),
    },
  });
  funded = await g.fundedClient();
});
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
  await g.close();
  await staller.close();
});
beforeEach(() => g.resetScripts());

type Fake = 'openai' | 'anthropic' | 'gemini';
const ONE_READ = 'chunks and error in one read';
/** Asked for this, the staller sends its headers and nothing more. */
const NO_OUTPUT = 'headers and nothing else';
/** How long the gateway reads on a stream whose client left after output (STREAM_DRAIN_MS). */
const DRAIN_MS = 600;

async function rawStream(model: string, content: string) {
  const body = JSON.stringify({
    model,
    messages: [{ role: 'user', content }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const response = await rawPost(g.gateway.origin, '/v1/chat/completions', funded.key, body);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return sseDataLines(String(response.json.raw));
}

const CASES: Array<{ fake: Fake; model: string; mode: 'error-event' | 'disconnect'; code: number }> = [
  { fake: 'openai', model: 'openai/gpt-4o', mode: 'error-event', code: 500 },
  { fake: 'anthropic', model: 'anthropic/claude-sonnet-4-5', mode: 'error-event', code: 529 },
  { fake: 'gemini', model: 'google/gemini-2.5-flash', mode: 'error-event', code: 503 },
  { fake: 'openai', model: 'openai/gpt-4o', mode: 'disconnect', code: 502 },
  { fake: 'anthropic', model: 'anthropic/claude-sonnet-4-5', mode: 'disconnect', code: 502 },
  { fake: 'gemini', model: 'google/gemini-2.5-flash', mode: 'disconnect', code: 502 },
];

describe('a failure after the stream started', () => {
  it.each(CASES)('$fake $mode: chunks, the error event with code $code, [DONE], no charge', async (c) => {
    const behaviour: FakeBehaviour = { kind: 'fail-mid-stream', afterEvents: 3, mode: c.mode };
    g[c.fake].script.next(behaviour);
    const before = await g.balance(funded.accountId);
    const calls = g[c.fake].requests.length;
    const lines = await rawStream(c.model, 'one two three four five six seven eight');
    // Bytes reached the client: no fallback to the model's second route.
    expect(g[c.fake].requests.length - calls).toBe(1);
    const errorAt = lines.findIndex((line) => line !== '[DONE]' && 'error' in line);
    expect(errorAt).toBeGreaterThan(0);
    expect(lines.slice(0, errorAt).every((l) => l !== '[DONE]' && l.object === 'chat.completion.chunk')).toBe(
      true,
    );
    const event = lines[errorAt] as { error: Record<string, unknown> };
    expect(event.error).toMatchObject({ type: 'upstream_error', code: c.code, message: expect.any(String) });
    expect(typeof event.error.code).toBe('number');
    expect(lines.slice(errorAt + 1)).toEqual(['[DONE]']);
    // No usage chunk: the request failed.
    expect(lines.some((l) => l !== '[DONE]' && 'usage' in l && l.usage)).toBe(false);
    expect(await g.balance(funded.accountId)).toBe(before);
  });

  it('chunks and an error event arriving in one read: the chunks first, then the error, no charge', async () => {
    const before = await g.balance(funded.accountId);
    const lines = await rawStream('mistral/mistral-small-latest', ONE_READ);
    type Chunk = { choices?: Array<{ delta?: { content?: string } }> };
    const contents = lines.map((line) =>
      line === '[DONE]' ? undefined : (line as Chunk).choices?.[0]?.delta?.content,
    );
    expect(contents.slice(0, 2)).toEqual(['', 'Echo: ']);
    expect(lines[2]).toMatchObject({ error: { type: 'upstream_error', code: 500 } });
    expect(lines.slice(3)).toEqual(['[DONE]']);
    expect(await g.balance(funded.accountId)).toBe(before);
  });

  it('surfaces as an error in the SDK', async () => {
    g.openai.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode: 'error-event' });
    const stream = await funded.client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'a b c d e f' }],
      stream: true,
    });
    let received = 0;
    const failure = await (async () => {
      for await (const _ of stream) received += 1;
    })().catch((err: unknown) => err);
    expect(received).toBeGreaterThan(0);
    expect(failure).toBeInstanceOf(Error);
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 2_000): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

interface UsageRow {
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

/** The account's usage rows (spec: GET /v1/usage), the record of what was charged. */
async function usageRows(key: string): Promise<UsageRow[]> {
  const response = await fetch(`${g.gateway.origin}/v1/usage?days=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await response.json()) as { data: UsageRow[] }).data;
}

describe('a client that goes away mid-stream', () => {
  /** Reads a stream until `enough(text)`, then goes away (the SDK ends the iteration quietly). */
  async function readThenAbort(
    client: FundedClient['client'],
    model: string,
    content: string,
    enough: (text: string) => boolean = (text) => text !== '',
  ): Promise<string> {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model, messages: [{ role: 'user', content }], stream: true, stream_options: { include_usage: true } },
      { signal: controller.signal },
    );
    let text = '';
    await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (enough(text)) controller.abort();
      }
    })().catch((err: unknown) => err);
    expect(controller.signal.aborted).toBe(true);
    return text;
  }

  /** The account's one charge once it landed: the usage row (exactly one request) and the wallet's loss. */
  async function theCharge(own: FundedClient, before: number, timeoutMs = 5_000) {
    await waitFor(async () => (await usageRows(own.key)).length === 1, timeoutMs);
    // Time for a (wrong) second charge to land.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rows = await usageRows(own.key);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.requests).toBe(1);
    expect(before - (await g.balance(own.accountId))).toBeCloseTo(rows[0]?.cost ?? 0, 6);
    return rows[0] as UsageRow;
  }

  it.each([
    { fake: 'openai', model: 'openai/gpt-4o', tail: 2 },
    { fake: 'anthropic', model: 'anthropic/claude-sonnet-4-5', tail: 2 },
  ] as const)(
    '$model: read to the last content chunk, then gone: charged in full, once, like a stream read to its end',
    async (c) => {
      const prompt = 'every content chunk then gone';
      const whole = await g.fundedClient();
      const wholeBefore = await g.balance(whole.accountId);
      const all = await collectChatStream(
        await whole.client.chat.completions.create({
          model: c.model,
          messages: [{ role: 'user', content: prompt }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      const full = await theCharge(whole, wholeBefore);

      const own = await g.fundedClient();
      const before = await g.balance(own.accountId);
      g[c.fake].script.next({ kind: 'pause-before-end', pauseMs: 300, tailEvents: c.tail });
      const text = await readThenAbort(own.client, c.model, prompt, (read) => read === all.text);
      expect(text).toBe(all.text);
      const row = await theCharge(own, before);
      expect(row).toMatchObject({ input_tokens: full.input_tokens, output_tokens: full.output_tokens });
      expect(row.cost).toBe(full.cost);
      expect(row.cost).toBeGreaterThan(0);
    },
  );

  it('reads an Anthropic stream on for STREAM_DRAIN_MS, then cuts it: its reported input and the output it produced', async () => {
    const own = await g.fundedClient();
    g.anthropic.script.next({ kind: 'stall-mid-stream', afterEvents: 4 });
    const abortedBefore = g.anthropic.abortedStreams();
    const before = await g.balance(own.accountId);
    const left = Date.now();
    await readThenAbort(own.client, 'anthropic/claude-sonnet-4-5', 'please abort me soon');
    await waitFor(() => g.anthropic.abortedStreams() === abortedBefore + 1, DRAIN_MS + 5_000);
    // Not at once: read on until the bound.
    expect(Date.now() - left).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    const row = await theCharge(own, before);
    // message_start reported the input (and 1 output token); "Echo: " was produced: 2 tokens.
    const sent = fakeRequestSchema.parse(bodyOf(g.anthropic.requests.at(-1)));
    expect(row).toMatchObject({
      model: 'anthropic/claude-sonnet-4-5',
      output_tokens: Math.ceil('Echo: '.length / 4),
    });
    expect(row.input_tokens).toBe(buildMessage(sent, 0, 0).usage.input_tokens);
    expect(row.cost).toBeGreaterThan(0);
  });

  it('cuts a Gemini stream after STREAM_DRAIN_MS and charges the prompt tokens it reported and the output it produced', async () => {
    const own = await g.fundedClient();
    g.gemini.script.next({ kind: 'stall-mid-stream', afterEvents: 1 });
    const before = await g.balance(own.accountId);
    await readThenAbort(own.client, 'google/gemini-2.5-flash', 'please abort me soon');
    const row = await theCharge(own, before, DRAIN_MS + 5_000);
    expect(row.model).toBe('google/gemini-2.5-flash');
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeGreaterThan(0);
  });

  it('cuts an OpenAI-compatible stream that reported no usage after STREAM_DRAIN_MS: input estimated, output counted', async () => {
    const own = await g.fundedClient();
    const before = await g.balance(own.accountId);
    const closedBefore = stallerClosed;
    const left = Date.now();
    await readThenAbort(own.client, 'mistral/mistral-small-latest', 'please abort me soon');
    await waitFor(() => stallerClosed === closedBefore + 1, DRAIN_MS + 5_000);
    expect(Date.now() - left).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    const row = await theCharge(own, before);
    expect(row.output_tokens).toBe(Math.ceil('Echo: '.length / 4));
    expect(row.input_tokens).toBeGreaterThan(0);
  });

  it('aborts a stream whose client left before any output at once, and charges nothing: none was reported', async () => {
    const own = await g.fundedClient();
    const before = await g.balance(own.accountId);
    const closedBefore = stallerClosed;
    const controller = new AbortController();
    const pending = own.client.chat.completions
      .create(
        {
          model: 'mistral/mistral-small-latest',
          messages: [{ role: 'user', content: NO_OUTPUT }],
          stream: true,
        },
        { signal: controller.signal },
      )
      .catch((err: unknown) => err);
    await waitFor(() => staller.requests.some((r) => r.body.includes(NO_OUTPUT)));
    controller.abort();
    await pending;
    expect(await waitFor(() => stallerClosed === closedBefore + 1)).toBeLessThan(500);
    // Give a (wrong) settlement the time to land before checking nothing did.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await usageRows(own.key)).toEqual([]);
    expect(await g.balance(own.accountId)).toBe(before);
  });

  it('cancels the upstream call of a non-streamed request whose client went away, charging nothing', async () => {
    const own = await g.fundedClient();
    const before = await g.balance(own.accountId);
    const closedBefore = stallerClosed;
    const { controller, pending } = abandonable(own.client, 'mistral/mistral-small-latest', 'never answered');
    await waitFor(() => staller.requests.some((r) => r.body.includes('never answered')));
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect(await waitFor(() => stallerClosed === closedBefore + 1)).toBeLessThan(500);
    expect(await usageRows(own.key)).toEqual([]);
    expect(await g.balance(own.accountId)).toBe(before);
  });

  it('tries no other route for a client that went away, and logs it as the client closing, not as a provider failure', async () => {
    const own = await g.fundedClient();
    const before = await g.balance(own.accountId);
    // openai/gpt-4o-mini has a second route: a failure of the first would move on to it.
    g.openai.script.next({ kind: 'slow', delayMs: 3_000 });
    const sentBefore = g.openai.requests.length;
    const attemptsBefore = await upstreamAttempts('openai');
    const { controller, pending } = abandonable(own.client, 'openai/gpt-4o-mini', 'abandoned');
    await waitFor(() => g.openai.requests.length === sentBefore + 1);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor(async () => (await upstreamAttempts('openai')).aborted === attemptsBefore.aborted + 1);
    // Time for a (wrong) fallback attempt to reach the second route.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(g.openai.requests.length).toBe(sentBefore + 1);
    expect(await upstreamAttempts('openai')).toEqual({
      ...attemptsBefore,
      aborted: attemptsBefore.aborted + 1,
    });
    const lines = g.gateway.logs().filter((line) => line.keyId === own.keyId);
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, status: 499, code: 'client_closed_request' }),
    );
    expect(await usageRows(own.key)).toEqual([]);
    expect(await g.balance(own.accountId)).toBe(before);
  });
});

/** `gateway_upstream_attempts_total` of one provider, by outcome. */
async function upstreamAttempts(provider: string): Promise<Record<string, number> & { aborted: number }> {
  const metric = await metricsRegistry.getSingleMetric('gateway_upstream_attempts_total')?.get();
  const byOutcome: Record<string, number> = {};
  for (const { labels, value } of metric?.values ?? []) {
    if (labels.provider === provider) byOutcome[String(labels.outcome)] = value;
  }
  return { aborted: 0, connection_error: 0, ...byOutcome };
}
