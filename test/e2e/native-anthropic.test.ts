/**
 * Anthropic's own Messages API through the gateway (`/anthropic`), with the official Anthropic SDK
 * and Claude Code's way of calling a gateway, against the fake Anthropic upstream: bodies and
 * streams pass through unchanged but for the model name and the credential, on the same keys,
 * limits and wallet as `/v1`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { anthropicUsage } from '../../shared/src/native/anthropic/usage.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import { ANTHROPIC_FAKE_KEY } from '../fakes/anthropic-upstream.ts';
import { createFundedKey } from '../helpers/admin-client.ts';
import { lastBody, startGatewayWithFakes, useGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';
import { openSocket, portOf } from '../helpers/raw-http.ts';

const MODEL = 'anthropic/claude-sonnet-4-5';
const { g, funded } = useGatewayWithFakes();

function anthropicClient(key: string, headers: Record<string, string> = {}): Anthropic {
  return new Anthropic({
    apiKey: key,
    baseURL: `${g.gateway.origin}/anthropic`,
    maxRetries: 0,
    defaultHeaders: headers,
  });
}

/** What the catalogue prices a Messages usage at, in µIRT. */
function costOfUsage(usage: Record<string, unknown>): bigint {
  const model = loadConfiguredCatalogue(g.gateway.config).get(MODEL);
  if (model === undefined) throw new Error('no model');
  return nativeCost(model, anthropicUsage(usage));
}

async function post(
  path: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${g.gateway.origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'x-api-key': key }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('Anthropic SDK against /anthropic', () => {
  it('create: the answer as the provider gave it, the cost in X-Service-Cost, charged once exactly', async () => {
    const client = anthropicClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const { data: message, response } = await client.messages
      .create({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Hello Claude' }] })
      .withResponse();
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Echo: Hello Claude' });
    const cost = costOfUsage(message.usage as unknown as Record<string, unknown>);
    expect(cost).toBeGreaterThan(0n);
    expect(response.headers.get('x-service-cost')).toBe(String(Number(cost) / 1e6));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    // Upstream: the route's model id and the gateway's own credential, never the client's key.
    const sent = g.anthropic.requests.at(-1);
    expect(lastBody(g.anthropic)).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 200 });
    expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_FAKE_KEY);
    // The client's own API version is forwarded (the gateway sends 2023-06-01 only when none is given).
    expect(sent?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('stream: thinking blocks and their signatures come back, charged the final usage once', async () => {
    const client = anthropicClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const stream = client.messages.stream({
      model: 'sonnet',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Think about kites' }],
    });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({
      type: 'thinking',
      thinking: 'Thinking about: Think about kites',
    });
    expect((message.content[0] as { signature: string }).signature).toMatch(/^sig_fake_\d+$/);
    const cost = costOfUsage(message.usage as unknown as Record<string, unknown>);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('the streamed bytes are the upstream bytes, and the cost arrives as a trailer', async () => {
    const body = {
      model: MODEL,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'bytes' }],
    };
    const res = await post('/anthropic/v1/messages', funded.key, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toContain('event: message_start');
    expect(text).toContain('event: message_stop');
    // The same request straight to the fake gives the same events (ids differ by sequence only).
    const direct = await fetch(`${g.anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': ANTHROPIC_FAKE_KEY,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({ ...body, model: 'claude-sonnet-4-5-20250929' }),
    });
    const normalize = (s: string) => s.replace(/msg_fake_\d+|req_fake_\d+/g, 'ID');
    expect(normalize(text)).toBe(normalize(await direct.text()));
  });

  it('count_tokens: the provider’s count, nothing charged', async () => {
    const client = anthropicClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const counted = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(counted.input_tokens).toBe(4);
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('tools: a tool call comes back as Anthropic shapes it', async () => {
    const client = anthropicClient(funded.key);
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 300,
      tool_choice: { type: 'any' },
      tools: [
        {
          name: 'lookup_city',
          description: 'Facts about a city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      messages: [{ role: 'user', content: 'Paris' }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'lookup_city' });
  });
});

describe("Claude Code's way of calling a gateway", () => {
  it('ANTHROPIC_BASE_URL=<gateway>/anthropic, the key in x-api-key or Authorization, beta headers forwarded, billed', async () => {
    const beta =
      'claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14';
    for (const carrier of ['x-api-key', 'authorization'] as const) {
      const before = await g.balanceMicros(funded.accountId);
      const res = await fetch(`${g.gateway.origin}/anthropic/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'anthropic-beta': beta,
          'user-agent': 'claude-cli/2.0.0 (external, cli)',
          'x-app': 'cli',
          ...(carrier === 'x-api-key'
            ? { 'x-api-key': funded.key }
            : { authorization: `Bearer ${funded.key}` }),
        },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5-20250929',
          max_tokens: 32000,
          stream: true,
          system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: [{ type: 'text', text: 'list the files' }] }],
          metadata: { user_id: 'user_abc_account__session_123' },
        }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('event: message_stop');
      const sent = g.anthropic.requests.at(-1);
      expect(sent?.headers['anthropic-beta']).toBe(beta);
      expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_FAKE_KEY);
      expect(sent?.headers.authorization).toBeUndefined();
      expect(await g.balanceMicros(funded.accountId)).toBeLessThan(before);
    }
  });
});

describe('admission, errors and fallbacks on /anthropic', () => {
  const hello = { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };

  it('no key → 401 in the gateway envelope; a model the key may not use → 403', async () => {
    const none = await post('/anthropic/v1/messages', undefined, hello);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    const limited = await createFundedKey(g.gateway.app, {
      settings: { allowed_models: ['openai/gpt-4o-mini'] },
    });
    const refused = await post('/anthropic/v1/messages', limited.key, hello);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'model_not_allowed' } });
  });

  it('an unknown model → 404 model_not_found; a body that is not JSON → 400', async () => {
    const unknown = await post('/anthropic/v1/messages', funded.key, { ...hello, model: 'claude-nope' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } });
    const broken = await post('/anthropic/v1/messages', funded.key, '{"model":');
    expect(broken.status).toBe(400);
    for (const headers of [{}, { 'content-type': 'application/json' }]) {
      const empty = await fetch(`${g.gateway.origin}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': funded.key, ...headers },
      });
      expect(empty.status).toBe(400);
      expect(await empty.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
  });

  it('the rate limit counts native and /v1 requests together', async () => {
    const key = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: { rate_limit: 2 } });
    const v1 = await fetch(`${g.gateway.origin}/v1/balance`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(v1.status).toBe(200);
    expect((await post('/anthropic/v1/messages', key.key, hello)).status).toBe(200);
    const third = await post('/anthropic/v1/messages', key.key, hello);
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it("the provider's own validation error passes through in its format, scrubbed, and nothing is charged", async () => {
    const before = await g.balanceMicros(funded.accountId);
    // In the range the gateway takes (0 to 2, as /v1), above Anthropic's (0 to 1): Anthropic refuses it.
    const res = await post('/anthropic/v1/messages', funded.key, { ...hello, temperature: 1.5 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a 5xx on the first route falls back to the second before the client sees anything', async () => {
    g.anthropic.script.next({ kind: 'status', status: 529 });
    const res = await post('/anthropic/v1/messages', funded.key, hello);
    expect(res.status).toBe(200);
    const models = g.anthropic.requests.slice(-2).map((r) => JSON.parse(r.body.toString()).model);
    expect(models).toEqual(['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5']);
  });

  it('every route 429 → 429 rate_limit_error; every route failing → 503 upstream_error; nothing charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    g.anthropic.script.next({ kind: 'status', status: 429 }, 2);
    const limited = await post('/anthropic/v1/messages', funded.key, hello);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    g.anthropic.script.next({ kind: 'status', status: 500 }).next({ kind: 'status', status: 529 });
    const down = await post('/anthropic/v1/messages', funded.key, hello);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).not.toBeNull();
    expect(await down.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a stream the provider breaks off mid-way is not charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    g.anthropic.script.next({ kind: 'fail-mid-stream', afterEvents: 3, mode: 'disconnect' });
    const res = await post('/anthropic/v1/messages', funded.key, { ...hello, stream: true });
    expect(res.status).toBe(200);
    // The client's connection breaks off too, after the events that came.
    await expect(res.text()).rejects.toThrow();
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('50 concurrent requests on a small wallet: the wallet equals its ledger, overshoot at most one request', async () => {
    // 200 IRT: about two holds of this request at a time (≈ 90 IRT each), about 20 answers (≈ 10 IRT).
    const poor = await createFundedKey(g.gateway.app, { topUp: 200, settings: { rate_limit: 3000 } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post('/anthropic/v1/messages', poor.key, hello)),
    );
    expect(answers.every((a) => a.status === 200 || a.status === 402)).toBe(true);
    const costs = answers
      .filter((a) => a.status === 200)
      .map((a) => BigInt(Math.round(Number(a.headers.get('x-service-cost')) * 1e6)));
    expect(costs.length).toBeGreaterThan(1);
    expect(costs.length).toBeLessThan(50);
    const spent = costs.reduce((sum, c) => sum + c, 0n);
    const balance = await g.balanceMicros(poor.accountId);
    expect(balance).toBe(200_000_000n - spent);
    // Each request states max_tokens, so each hold covers its cost: at most one request overshoots.
    expect(-balance).toBeLessThan(costs[0] ?? 0n);
  });

  it('paths: an unserved path → 404 endpoint_not_supported; a provider without a native API → provider_not_found', async () => {
    const models = await fetch(`${g.gateway.origin}/anthropic/v1/models`);
    expect(models.status).toBe(404);
    expect(await models.json()).toMatchObject({ error: { code: 'endpoint_not_supported' } });
    const mistral = await post('/mistral/v1/chat/completions', funded.key, hello);
    expect(mistral.status).toBe(404);
    expect(await mistral.json()).toMatchObject({ error: { code: 'provider_not_found' } });
  });
});

describe('a gateway without an Anthropic credential', () => {
  it('answers 404 provider_not_found under /anthropic', async () => {
    const bare = await startGatewayWithFakes({ env: { ANTHROPIC_API_KEY: undefined } });
    try {
      const key = await bare.fundedClient();
      const res = await fetch(`${bare.gateway.origin}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.key },
        body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'provider_not_found' } });
    } finally {
      await bare.close();
    }
  });
});

describe('a gateway whose Anthropic credential the provider refuses', () => {
  it('tries every route, then 503 upstream_error: the provider’s 401 never reaches the client', async () => {
    const refused = await startGatewayWithFakes({ env: { ANTHROPIC_API_KEY: 'not-the-fake-key' } });
    try {
      const key = await refused.fundedClient();
      const before = await refused.balanceMicros(key.accountId);
      const res = await fetch(`${refused.gateway.origin}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.key },
        body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
      expect(refused.anthropic.requests).toHaveLength(2);
      expect(await refused.balanceMicros(key.accountId)).toBe(before);
    } finally {
      await refused.close();
    }
  });
});

describe('a client that goes away before the answer', () => {
  it('cancels the call, tries no other route and logs 499 client_closed_request, not a failure', async () => {
    const key = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: {} });
    const before = await g.balanceMicros(key.accountId);
    // The model has a second route: a failure of the first would move on to it.
    g.anthropic.script.next({ kind: 'slow', delayMs: 3_000 });
    const sentBefore = g.anthropic.requests.length;
    // A client that goes away: its connection closes while the provider is still working.
    const body = JSON.stringify({
      model: MODEL,
      max_tokens: 10,
      messages: [{ role: 'user', content: 'abandoned' }],
    });
    const socket = await openSocket(portOf(g.gateway.origin));
    socket.write(
      `POST /anthropic/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key.key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await expect.poll(() => g.anthropic.requests.length).toBe(sentBefore + 1);
    socket.destroy();
    const lines = () => g.gateway.logs().filter((line) => line.keyId === key.keyId);
    await expect
      .poll(lines)
      .toContainEqual(expect.objectContaining({ level: 30, status: 499, code: 'client_closed_request' }));
    // Time for a (wrong) fallback attempt to reach the second route.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(g.anthropic.requests.length).toBe(sentBefore + 1);
    expect(lines().filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(await g.balanceMicros(key.accountId)).toBe(before);
  });
});
