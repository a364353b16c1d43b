/**
 * Routes and fallback (issue 4, item 6) over real HTTP: 429 and 5xx move on to the next route
 * before any byte reached the client; all routes 429 → 429 `rate_limit_error`; other failures →
 * 502; connect timeouts only → 504; a provider's own rejection → its status as
 * `invalid_request_error`, without trying another route and without leaking keys or addresses.
 * A failed request is never charged.
 */
import { fileURLToPath } from 'node:url';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  bodyOf,
  type FundedClient,
  type GatewayWithFakes,
  serviceOf,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';
import { startUnacceptingPort, type UnacceptingPort } from '../helpers/unaccepting-port.ts';

const CATALOGUE = fileURLToPath(new URL('../fixtures/cross-provider-catalogue.json', import.meta.url));
const MISTRAL_KEY = 'Qm7vXw2LkPz9RtYb4NcH8sJd3FgA6eKu';
const WRONG_XAI_KEY = 'xai-wrongwrongwrong1234';

let g: GatewayWithFakes;
let funded: FundedClient;
/** Gateway on the cross-provider catalogue, OpenAI behind a port that never accepts. */
let x: GatewayWithFakes;
let xFunded: FundedClient;
let blackHole: UnacceptingPort;
let leaky: FakeUpstream;

beforeAll(async () => {
  blackHole = await startUnacceptingPort();
  leaky = await startFakeUpstream((request, response) => {
    const message = `Invalid 'messages[0]': see https://internal.example.net:8443/debug?key=${MISTRAL_KEY} (from 10.1.2.3:9000, http://${request.headers.host}/v1, token sk-live-abcdef123456)`;
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ object: 'error', message, type: 'invalid_request_error', param: null, code: null }),
    );
  });
  g = await startGatewayWithFakes();
  funded = await g.fundedClient();
  x = await startGatewayWithFakes({
    env: {
      CATALOGUE_PATH: CATALOGUE,
      // The fixture's default media models (a catalogue must hold them; unused here).
      DEFAULT_IMAGE_MODEL: 'demo/image',
      DEFAULT_TTS_MODEL: 'demo/tts',
      DEFAULT_STT_MODEL: 'demo/stt',
      OPENAI_BASE_URL: `http://127.0.0.1:${blackHole.port}/v1`,
      UPSTREAM_CONNECT_TIMEOUT_MS: '200',
      UPSTREAM_HEADERS_TIMEOUT_MS: '300',
      MISTRAL_BASE_URL: `${leaky.url}/v1`,
      MISTRAL_API_KEY: MISTRAL_KEY,
      XAI_API_KEY: WRONG_XAI_KEY,
    },
  });
  xFunded = await x.fundedClient();
});
afterAll(async () => {
  await Promise.all([g.close(), x.close()]);
  await Promise.all([blackHole.close(), leaky.close()]);
});
beforeEach(() => {
  g.resetScripts();
  x.resetScripts();
});

const ask = (client: OpenAI, model: string, content = 'Hello') =>
  client.chat.completions.create({ model, messages: [{ role: 'user', content }] });

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (err: unknown) => err as { status: number; error: { type: string; code: string; message: string } },
  );

const modelsSent = (fake: { requests: GatewayWithFakes['openai']['requests'] }, since: number) =>
  fake.requests.slice(since).map((r) => bodyOf(r).model);

describe('fallback to the next route', () => {
  for (const status of [429, 500, 503]) {
    it(`moves on to the second route on ${status}, and charges once`, async () => {
      g.openai.script.next({ kind: 'status', status, retryAfterSeconds: 1 });
      const since = g.openai.requests.length;
      const before = await g.balance(funded.accountId);
      const completion = await ask(funded.client, 'openai/gpt-4o');
      expect(completion.choices[0]?.message.content).toBe('Echo: Hello');
      expect(modelsSent(g.openai, since)).toEqual(['gpt-4o', 'gpt-4o-2024-08-06']);
      expect(before - (await g.balance(funded.accountId))).toBeCloseTo(serviceOf(completion).cost, 6);
    });
  }

  it('moves on when the upstream cuts the connection without answering', async () => {
    g.openai.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const since = g.openai.requests.length;
    const completion = await ask(funded.client, 'openai/gpt-4o', 'cut');
    expect(completion.choices[0]?.message.content).toBe('Echo: cut');
    expect(modelsSent(g.openai, since)).toEqual(['gpt-4o', 'gpt-4o-2024-08-06']);
  });

  it('moves on when the upstream sends no headers in time (UPSTREAM_HEADERS_TIMEOUT_MS)', async () => {
    x.anthropic.script.next({ kind: 'slow', delayMs: 3_000 });
    const completion = await ask(xFunded.client, 'anthropic/claude-then-gemini', 'too slow');
    expect(completion.choices[0]?.message.content).toBe('Echo: too slow');
  });

  it('falls back before the first byte of a stream (Anthropic 529 overloaded)', async () => {
    g.anthropic.script.next({ kind: 'status', status: 529 });
    const since = g.anthropic.requests.length;
    const stream = await funded.client.chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hello stream' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Echo: Hello stream');
    expect(modelsSent(g.anthropic, since)).toEqual(['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5']);
  });

  it('falls back across providers: Anthropic 429, then Gemini answers (streamed and not)', async () => {
    x.anthropic.script.next({ kind: 'status', status: 429 }, 2);
    const completion = await ask(xFunded.client, 'anthropic/claude-then-gemini', 'cross');
    expect(completion.choices[0]?.message.content).toBe('Echo: cross');
    expect(completion.model).toBe('anthropic/claude-then-gemini');
    const stream = await xFunded.client.chat.completions.create({
      model: 'anthropic/claude-then-gemini',
      messages: [{ role: 'user', content: 'cross stream' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Echo: cross stream');
    expect(x.gemini.requests.slice(-2).map((r) => r.url.split('?')[0])).toEqual([
      '/v1beta/models/gemini-2.5-flash:generateContent',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    ]);
  });

  it('falls back on a connect timeout: OpenAI never accepts, Anthropic answers', async () => {
    const started = Date.now();
    const completion = await ask(xFunded.client, 'openai/gpt-4o-then-claude', 'timeout then claude');
    expect(completion.choices[0]?.message.content).toBe('Echo: timeout then claude');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});

describe('when every route fails', () => {
  it('answers 429 rate_limit_error when all routes are rate limited, charging nothing', async () => {
    g.openai.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 }, 2);
    const since = g.openai.requests.length;
    const before = await g.balance(funded.accountId);
    const error = await failureOf(ask(funded.client, 'openai/gpt-4o'));
    expect(error.status).toBe(429);
    expect(error.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_error' });
    expect(g.openai.requests.length - since).toBe(2);
    expect(await g.balance(funded.accountId)).toBe(before);
  });

  it('answers 502 upstream_error when routes fail otherwise (429 then 500)', async () => {
    g.openai.script.next({ kind: 'status', status: 429 }).next({ kind: 'status', status: 500 });
    const before = await g.balance(funded.accountId);
    const error = await failureOf(ask(funded.client, 'openai/gpt-4o'));
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(await g.balance(funded.accountId)).toBe(before);
  });

  it('answers 502 for a streamed request whose only route fails before the first byte', async () => {
    g.gemini.script.next({ kind: 'status', status: 500 });
    const error = await failureOf(
      funded.client.chat.completions.create({
        model: 'google/gemini-2.5-flash',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      }),
    );
    expect(error.status).toBe(502);
    expect(error.error.type).toBe('upstream_error');
  });

  it('answers 504 when connecting to every route timed out, charging nothing', async () => {
    const before = await x.balance(xFunded.accountId);
    const started = Date.now();
    const error = await failureOf(ask(xFunded.client, 'openai/gpt-4o-twice'));
    expect(error.status).toBe(504);
    expect(error.error.type).toBe('upstream_error');
    // Two routes, each giving up after UPSTREAM_CONNECT_TIMEOUT_MS (200 ms).
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await x.balance(xFunded.accountId)).toBe(before);
  });
});

describe("the provider's own rejection", () => {
  it('answers 400 invalid_request_error with the provider message, without trying another route', async () => {
    const since = g.anthropic.requests.length;
    const before = await g.balance(funded.accountId);
    const error = await failureOf(
      funded.client.chat.completions.create({
        model: 'anthropic/claude-sonnet-4-5',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'toolu_unknown', content: 'orphan result' },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error' });
    expect(error.error.message).toContain('toolu_unknown');
    expect(g.anthropic.requests.length - since).toBe(1);
    expect(await g.balance(funded.accountId)).toBe(before);
  });

  it('passes an OpenAI 400 on as 400, no fallback', async () => {
    g.openai.script.next({ kind: 'status', status: 400 });
    const since = g.openai.requests.length;
    const error = await failureOf(ask(funded.client, 'openai/gpt-4o'));
    expect(error.status).toBe(400);
    expect(error.error.message).toContain('Invalid request.');
    expect(g.openai.requests.length - since).toBe(1);
  });

  it('never leaks keys or internal addresses from the provider message', async () => {
    const error = await failureOf(ask(xFunded.client, 'mistral/mistral-small-latest'));
    expect(error.status).toBe(400);
    expect(error.error.type).toBe('invalid_request_error');
    expect(error.error.message).toContain("Invalid 'messages[0]'");
    const text = JSON.stringify(error.error);
    for (const secret of [
      MISTRAL_KEY,
      'internal.example.net',
      '10.1.2.3',
      '127.0.0.1',
      'sk-live',
      leaky.url,
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it("treats a refusal of the gateway's own key as 502, naming neither key nor address", async () => {
    const error = await failureOf(ask(xFunded.client, 'xai/grok-3-mini'));
    expect(error.status).toBe(502);
    expect(error.error.type).toBe('upstream_error');
    const text = JSON.stringify(error.error);
    expect(text).not.toContain(WRONG_XAI_KEY);
    expect(text).not.toContain(WRONG_XAI_KEY.slice(-4));
    expect(text).not.toContain('127.0.0.1');
  });
});

afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
});
