/**
 * Gemini's own API through the gateway (`/gemini`), with the Google Gen AI SDK and raw HTTP,
 * against the fake Gemini upstream: bodies and streams (SSE and JSON-array framing) pass through
 * unchanged but for the model name and the credential, on the same keys, limits and wallet as `/v1`.
 * The gateway runs on the built-in catalogue with a second Google route for Gemini 2.5 Flash (to
 * show fallback) and a model whose route the provider does not know (to show its 404).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { embeddingUsage, geminiUsage } from '../../shared/src/native/google/usage.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import type { NativeUsage } from '../../shared/src/native/native-usage.ts';
import { FAKE_SIGNATURE } from '../fakes/gemini-upstream.ts';
import { createFundedKey } from '../helpers/admin-client.ts';
import type { RecordedRequest } from '../helpers/fake-upstream.ts';
import {
  bodyOf,
  type GatewayWithFakes,
  GEMINI_FAKE_KEY,
  startGatewayWithFakes,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const FLASH = 'google/gemini-2.5-flash';
/** Gemini 2.5 Flash's routes in this file's catalogue, in fallback order. */
const FLASH_ROUTES = ['gemini-2.5-flash', 'gemini-2.5-flash-preview-09-2025'];
const EMBEDDING = 'google/gemini-embedding-001';
/** A model whose only route names an upstream model the provider does not have (404 NOT_FOUND). */
const GONE = 'google/gemini-gone-test';

/** The built-in catalogue with Flash's second route and the gone model, in a temporary file. */
function testCatalogue(): string {
  const source = new URL('../../shared/src/catalogue/models.json', import.meta.url);
  const catalogue = JSON.parse(readFileSync(source, 'utf8')) as { models: Array<Record<string, unknown>> };
  const flash = catalogue.models.find((model) => model.id === FLASH);
  if (flash === undefined) throw new Error('no Gemini 2.5 Flash in the catalogue');
  flash.routes = FLASH_ROUTES.map((native_id) => ({ provider: 'google', native_id }));
  catalogue.models.push({
    ...flash,
    id: GONE,
    name: 'Gemini (gone upstream)',
    native_id: 'missing-model',
    routes: [{ provider: 'google', native_id: 'missing-model' }],
    aliases: [],
  });
  const path = join(mkdtempSync(join(tmpdir(), 'gemini-catalogue-')), 'models.json');
  writeFileSync(path, JSON.stringify(catalogue));
  return path;
}

const CATALOGUE_ENV = { CATALOGUE_PATH: testCatalogue() };
/** Short enough that a slow first route is left for the second within a test's time. */
const HEADERS_TIMEOUT_MS = 1000;
/** How long a stream whose client left after output is read on (docs/native.md). */
const DRAIN_MS = 400;
const { g, funded } = useGatewayWithFakes({
  env: {
    ...CATALOGUE_ENV,
    UPSTREAM_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    STREAM_DRAIN_MS: String(DRAIN_MS),
  },
});

function genai(key: string, gateway: GatewayWithFakes = g): GoogleGenAI {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${gateway.gateway.origin}/gemini` } });
}

/** A `GenerateContentResponse` chunk, as far as these tests read it. */
interface GeminiChunk {
  usageMetadata?: Record<string, unknown>;
  candidates?: Array<{ content?: { parts?: Array<{ text?: string }> } }>;
}

/** What the catalogue prices a usage at on `modelId`, in µIRT. */
function costOf(modelId: string, usage: NativeUsage): bigint {
  const model = loadConfiguredCatalogue(g.gateway.config).get(modelId);
  if (model === undefined) throw new Error(`no ${modelId}`);
  return nativeCost(model, usage);
}

/** The `X-Service-Cost` value (IRT) in µIRT. */
const micros = (irt: string | null | undefined): bigint => BigInt(Math.round(Number(irt) * 1e6));

const path = (model: string, method: string, query = '') =>
  `/gemini/v1beta/models/${model}:${method}${query}`;
const hello = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

/** A raw POST to the gateway, the key in `x-goog-api-key` (none when `key` is undefined). */
async function post(
  target: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  gateway: GatewayWithFakes = g,
): Promise<Response> {
  return fetch(`${gateway.gateway.origin}${target}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'x-goog-api-key': key }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The same request straight to the fake Gemini upstream, with its own key. */
async function direct(nativeId: string, method: string, body: unknown, query = ''): Promise<string> {
  const res = await fetch(`${g.gemini.url}/v1beta/models/${nativeId}:${method}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': GEMINI_FAKE_KEY },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return res.text();
}

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly trailers: NodeJS.Dict<string>;
}

/**
 * A POST read to its end with node:http, which exposes the trailers (the cost of a stream); the key
 * in `x-goog-api-key`, or none (when the query carries it).
 */
function postReadingTrailers(target: string, key: string | undefined, body: unknown): Promise<RawAnswer> {
  const headers = {
    'content-type': 'application/json',
    ...(key === undefined ? {} : { 'x-goog-api-key': key }),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${g.gateway.origin}${target}`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          trailers: res.trailers,
        }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Everything a recorded upstream request carried (to look for a key that must not be there). */
const wireOf = (request: RecordedRequest | undefined) =>
  `${request?.url} ${JSON.stringify(request?.headers)} ${request?.body.toString('utf8')}`;

/** The upstream path (and query) of the fake's last request. */
const lastUrl = () => g.gemini.requests.at(-1)?.url;

describe('the Google Gen AI SDK against /gemini', () => {
  it('generateContent: the answer as the provider gave it, the cost in X-Service-Cost, charged once exactly', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const sent = g.gemini.requests.length;
    const response = await genai(funded.key).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hello Gemini',
    });
    expect(response.text).toBe('Echo: Hello Gemini');
    const cost = costOf(FLASH, geminiUsage(response.usageMetadata as Record<string, unknown>));
    expect(cost).toBeGreaterThan(0n);
    expect(micros(response.sdkHttpResponse?.headers?.['x-service-cost'])).toBe(cost);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    // The SDK's request reached the fake once: the route's model, the gateway's own key only.
    expect(g.gemini.requests.length).toBe(sent + 1);
    const upstream = g.gemini.requests.at(-1);
    expect(upstream?.url).toBe('/v1/models/gemini-2.5-flash:generateContent');
    expect(upstream?.headers['x-goog-api-key']).toBe(GEMINI_FAKE_KEY);
    expect(wireOf(upstream)).not.toContain(funded.key);
  });

  it('generateContentStream: the text in order, charged the usage of the last chunk once', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const stream = await genai(funded.key).models.generateContentStream({
      model: 'gemini-flash',
      contents: 'Stream to me',
    });
    let text = '';
    let usage: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      usage = chunk.usageMetadata as Record<string, unknown>;
    }
    expect(text).toBe('Echo: Stream to me');
    expect(lastUrl()).toBe('/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    const cost = costOf(FLASH, geminiUsage(usage ?? {}));
    expect(cost).toBeGreaterThan(0n);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('embedContent, single and batch (the SDK sends both as batchEmbedContents): charged per text', async () => {
    const ai = genai(funded.key);
    for (const contents of ['hello world', ['first text', 'second', 'and a third one']]) {
      const before = await g.balanceMicros(funded.accountId);
      const response = await ai.models.embedContent({
        model: 'gemini-embedding',
        contents,
        config: { outputDimensionality: 4 },
      });
      const count = Array.isArray(contents) ? contents.length : 1;
      expect(response.embeddings).toHaveLength(count);
      expect(response.embeddings?.[0]?.values).toHaveLength(4);
      // The alias in the path and in each `requests[].model` became the route's model.
      expect(lastUrl()).toBe('/v1/models/gemini-embedding-001:batchEmbedContents');
      const upstream = bodyOf(g.gemini.requests.at(-1)) as { requests: Array<{ model: string }> };
      expect(upstream.requests.map((r) => r.model)).toEqual(
        Array.from({ length: count }, () => 'models/gemini-embedding-001'),
      );
      const cost = costOf(EMBEDDING, embeddingUsage(upstream));
      expect(cost).toBeGreaterThan(0n);
      expect(micros(response.sdkHttpResponse?.headers?.['x-service-cost'])).toBe(cost);
      expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    }
  });

  it('countTokens: the provider’s count, nothing charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const counted = await genai(funded.key).models.countTokens({
      model: 'gemini-2.5-flash',
      contents: 'one two three four',
    });
    expect(counted.totalTokens).toBe(5);
    expect(lastUrl()).toBe('/v1/models/gemini-2.5-flash:countTokens');
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('thought signatures of a Gemini 3 function call come back, and go back upstream, byte for byte', async () => {
    const ai = genai(funded.key);
    const tools = [
      {
        functionDeclarations: [{ name: 'lookup_city', description: 'Facts about a city' }],
      },
    ];
    const question = { role: 'user', parts: [{ text: 'lookup_city Paris' }] };
    const first = await ai.models.generateContent({
      model: 'gemini-3-pro-preview',
      contents: [question],
      config: { tools },
    });
    const call = first.candidates?.[0]?.content;
    expect(call?.parts?.[0]?.thoughtSignature).toBe(FAKE_SIGNATURE);
    expect(call?.parts?.[0]?.functionCall).toMatchObject({ name: 'lookup_city' });
    const answer = {
      role: 'user',
      parts: [{ functionResponse: { name: 'lookup_city', response: { population: 2102650 } } }],
    };
    const second = await ai.models.generateContent({
      model: 'gemini-3-pro-preview',
      contents: [question, call ?? {}, answer],
      config: { tools },
    });
    expect(second.text).toBe('Tool lookup_city returned {"population":2102650}');
    expect(g.gemini.requests.at(-1)?.body.toString('utf8')).toContain(
      `"thoughtSignature":"${FAKE_SIGNATURE}"`,
    );
  });
});

describe('bodies and streams pass through byte for byte', () => {
  const tools = [{ functionDeclarations: [{ name: 'lookup_city', description: 'Facts' }] }];
  const ask = { contents: [{ role: 'user', parts: [{ text: 'lookup_city Rome' }] }], tools };

  it('the request body reaches the provider as sent (spacing, key order, number spelling)', async () => {
    const body =
      '{ "generationConfig" : {"temperature":0.50 ,"maxOutputTokens":100},\n "contents":[{"parts":[{"text":"spaced  \\u0041"}],"role":"user"}] }';
    const res = await post(path('gemini-flash', 'generateContent'), funded.key, body);
    expect(res.status).toBe(200);
    expect(g.gemini.requests.at(-1)?.body.toString('utf8')).toBe(body);
  });

  it('a whole answer with a thought signature is the provider’s bytes, its signature included', async () => {
    const res = await post(path('gemini-3-pro', 'generateContent'), funded.key, ask);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`"thoughtSignature":"${FAKE_SIGNATURE}"`);
    expect(text).toBe(await direct('gemini-3-pro-preview', 'generateContent', ask));
    // Without the signature on the next turn the provider refuses, in its own format.
    const before = await g.balanceMicros(funded.accountId);
    const unsigned = {
      ...ask,
      contents: [
        ...ask.contents,
        { role: 'model', parts: [{ functionCall: { name: 'lookup_city', args: { query: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup_city', response: { ok: true } } }] },
      ],
    };
    const refused = await post(path('gemini-3-pro', 'generateContent'), funded.key, unsigned);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('an SSE stream (`alt=sse`, the key in `?key=`) is the provider’s bytes, the cost in the trailer', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const res = await postReadingTrailers(
      path('gemini-3-pro-preview', 'streamGenerateContent', `?alt=sse&key=${funded.key}`),
      undefined,
      ask,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.text).toContain(`"thoughtSignature":"${FAKE_SIGNATURE}"`);
    expect(res.text).toBe(await direct('gemini-3-pro-preview', 'streamGenerateContent', ask, '?alt=sse'));
    // `key` never goes upstream; `alt=sse` does.
    expect(g.gemini.requests.at(-2)?.url).toBe(
      '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    );
    const cost = micros(res.trailers['x-service-cost']);
    expect(cost).toBeGreaterThan(0n);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('a JSON-array stream (no `alt`) is the provider’s bytes, billed from its last element', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const body = { contents: [{ role: 'user', parts: [{ text: 'an array, please' }] }] };
    const res = await postReadingTrailers(
      path('gemini-2.5-flash', 'streamGenerateContent'),
      funded.key,
      body,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).toBe(await direct('gemini-2.5-flash', 'streamGenerateContent', body));
    const elements = JSON.parse(res.text) as Array<{ usageMetadata: Record<string, unknown> }>;
    expect(elements.length).toBeGreaterThan(2);
    const cost = costOf(FLASH, geminiUsage(elements.at(-1)?.usageMetadata ?? {}));
    expect(micros(res.trailers['x-service-cost'])).toBe(cost);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('embedContent: the body’s model rewritten, the answer as given, charged per text', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const body = { model: 'models/gemini-embedding', content: { parts: [{ text: 'embed me, once' }] } };
    const res = await post(path('gemini-embedding-001', 'embedContent'), funded.key, body);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { embedding: { values: number[] } }).embedding.values).toHaveLength(8);
    expect(g.gemini.requests.at(-1)?.body.toString('utf8')).toBe(
      JSON.stringify({ ...body, model: 'models/gemini-embedding-001' }),
    );
    const cost = costOf(EMBEDDING, embeddingUsage(body));
    expect(micros(res.headers.get('x-service-cost'))).toBe(cost);
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('countTokens with a generateContentRequest: its model must be the path’s, and is rewritten', async () => {
    const wrapped = (model: string) => ({ generateContentRequest: { model, ...hello } });
    const ok = await post(
      path('gemini-flash', 'countTokens'),
      funded.key,
      wrapped('models/gemini-2.5-flash'),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ totalTokens: 1 });
    expect(bodyOf(g.gemini.requests.at(-1))).toMatchObject({
      generateContentRequest: { model: 'models/gemini-2.5-flash' },
    });
    const sent = g.gemini.requests.length;
    const other = await post(
      path('gemini-flash', 'countTokens'),
      funded.key,
      wrapped('models/gemini-2.5-pro'),
    );
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: { code: 'invalid_request_error' } });
    expect(g.gemini.requests.length).toBe(sent);
  });
});

describe('admission on /gemini', () => {
  it('every key carrier is accepted, and none reaches the provider', async () => {
    const carriers: Array<[string, Record<string, string>, string]> = [
      ['x-goog-api-key', { 'x-goog-api-key': funded.key }, ''],
      ['?key=', {}, `?key=${funded.key}`],
      ['authorization', { authorization: `Bearer ${funded.key}` }, ''],
      ['x-api-key', { 'x-api-key': funded.key }, ''],
      ['xi-api-key', { 'xi-api-key': funded.key }, ''],
      ['x-key', { 'x-key': funded.key }, ''],
    ];
    for (const [name, headers, query] of carriers) {
      const res = await post(path('gemini-2.5-flash', 'generateContent', query), undefined, hello, headers);
      expect(res.status, name).toBe(200);
      const upstream = g.gemini.requests.at(-1);
      expect(upstream?.url, name).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
      expect(upstream?.headers['x-goog-api-key'], name).toBe(GEMINI_FAKE_KEY);
      expect(wireOf(upstream), name).not.toContain(funded.key);
    }
  });

  it('no key or a bad key → 401; a model the key may not use → 403; another IP → 403', async () => {
    for (const key of [undefined, 'hk-not-a-key']) {
      const res = await post(path('gemini-2.5-flash', 'generateContent'), key, hello);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    }
    const limited = await createFundedKey(g.gateway.app, {
      topUp: 100,
      settings: { allowed_models: ['openai/gpt-4o-mini'] },
    });
    const refused = await post(path('gemini-2.5-flash', 'generateContent'), limited.key, hello);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'model_not_allowed' } });
    const elsewhere = await createFundedKey(g.gateway.app, {
      topUp: 100,
      settings: { allowed_ips: ['10.0.0.1'] },
    });
    const far = await post(path('gemini-2.5-flash', 'generateContent'), elsewhere.key, hello);
    expect(far.status).toBe(403);
    expect(await far.json()).toMatchObject({ error: { code: 'ip_not_allowed' } });
  });

  it('the rate limit counts native and /v1 requests together', async () => {
    const key = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: { rate_limit: 2 } });
    const v1 = await fetch(`${g.gateway.origin}/v1/balance`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(v1.status).toBe(200);
    expect((await post(path('gemini-2.5-flash', 'generateContent'), key.key, hello)).status).toBe(200);
    const third = await post(path('gemini-2.5-flash', 'countTokens'), key.key, hello);
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('a wallet below its minimum → 402 insufficient_quota; a key past its monthly cap → 402 spend_limit_reached', async () => {
    // One request passes on a tiny wallet or cap (never refused for its own hold) and overdraws it.
    for (const [settings, topUp, code] of [
      [{}, 0.01, 'insufficient_quota'],
      [{ monthly_cap: 0.01 }, 100, 'spend_limit_reached'],
    ] as const) {
      const key = await createFundedKey(g.gateway.app, { topUp, settings });
      expect((await post(path('gemini-2.5-flash', 'generateContent'), key.key, hello)).status).toBe(200);
      const before = await g.balanceMicros(key.accountId);
      const refused = await post(path('gemini-2.5-flash', 'generateContent'), key.key, hello);
      expect(refused.status, code).toBe(402);
      expect(await refused.json()).toMatchObject({ error: { code } });
      expect(await g.balanceMicros(key.accountId)).toBe(before);
    }
  });

  it('charges write the ledger and the usage rows as /v1 does', async () => {
    const key = await createFundedKey(g.gateway.app, { topUp: 1_000 });
    const before = await g.balanceMicros(key.accountId);
    const answers = [
      await post(path('gemini-2.5-flash', 'generateContent'), key.key, hello),
      await post(path('gemini-flash', 'generateContent'), key.key, {
        contents: [{ role: 'user', parts: [{ text: 'a longer question' }] }],
      }),
      await post(path('gemini-embedding-001', 'embedContent'), key.key, {
        content: { parts: [{ text: 'x' }] },
      }),
    ];
    const costs = answers.map((answer) => micros(answer.headers.get('x-service-cost')));
    expect(await g.balanceMicros(key.accountId)).toBe(before - costs.reduce((sum, c) => sum + c, 0n));
    expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
    const usage = await fetch(`${g.gateway.origin}/v1/usage?days=1`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    const rows = ((await usage.json()) as { data: Array<Record<string, unknown>> }).data;
    const flash = rows.find((row) => row.model === FLASH);
    // `hi` is 1 prompt token; `a longer question` 5; `Echo: hi` 2 output tokens, `Echo: a longer question` 6.
    expect(flash).toMatchObject({ requests: 2, input_tokens: 6, output_tokens: 8 });
    expect(micros(String(flash?.cost))).toBe((costs[0] ?? 0n) + (costs[1] ?? 0n));
    expect(rows.find((row) => row.model === EMBEDDING)).toMatchObject({ requests: 1, input_tokens: 1 });
  });

  it('50 concurrent requests on a small wallet: the wallet equals its ledger, overshoot at most one request', async () => {
    const poor = await createFundedKey(g.gateway.app, { topUp: 20, settings: { rate_limit: 3000 } });
    const bounded = { ...hello, generationConfig: { maxOutputTokens: 10 } };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(path('gemini-2.5-flash', 'generateContent'), poor.key, bounded)),
    );
    const statuses = JSON.stringify(answers.map((a) => a.status));
    expect(
      answers.every((a) => a.status === 200 || a.status === 402),
      statuses,
    ).toBe(true);
    const costs = answers.filter((a) => a.status === 200).map((a) => micros(a.headers.get('x-service-cost')));
    expect(costs.length, statuses).toBeGreaterThan(1);
    expect(costs.length, statuses).toBeLessThan(50);
    const spent = costs.reduce((sum, c) => sum + c, 0n);
    const balance = await g.balanceMicros(poor.accountId);
    expect(balance).toBe(20_000_000n - spent);
    // Each request states maxOutputTokens, so each hold covers its cost: at most one overshoots.
    expect(-balance).toBeLessThan(costs[0] ?? 0n);
    expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
  });
});

describe('refusals before anything is sent', () => {
  /** Posts and expects a 400 in the gateway's envelope with nothing sent upstream or charged. */
  async function expectRefused(target: string, body: unknown, message: RegExp): Promise<void> {
    const before = await g.balanceMicros(funded.accountId);
    const sent = g.gemini.requests.length;
    const res = await post(target, funded.key, body);
    const json = (await res.json()) as { error: { message: string; type: string } };
    expect(res.status, JSON.stringify(json)).toBe(400);
    expect(json.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringMatching(message),
    });
    expect(g.gemini.requests.length).toBe(sent);
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  }

  it('a body that is not a JSON object, or none at all', async () => {
    await expectRefused(path('gemini-2.5-flash', 'generateContent'), '{"contents":', /JSON/);
    await expectRefused(path('gemini-2.5-flash', 'generateContent'), '[1, 2]', /JSON object/);
    const none = await fetch(`${g.gateway.origin}${path('gemini-2.5-flash', 'generateContent')}`, {
      method: 'POST',
      headers: { 'x-goog-api-key': funded.key },
    });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('an unknown model → 404 model_not_found; a batch naming another model → 400', async () => {
    const unknown = await post(path('gemini-9-ultra', 'generateContent'), funded.key, hello);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } });
    await expectRefused(
      path('gemini-embedding-001', 'batchEmbedContents'),
      { requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } }] },
      /requests\[0\]\.model/,
    );
  });

  it('what the model has no price for: Google Search grounding (either spelling), audio input, non-text embeddings', async () => {
    for (const tool of [{ googleSearch: {} }, { google_search: {} }, { googleSearchRetrieval: {} }]) {
      await expectRefused(
        path('gemini-2.5-flash', 'generateContent'),
        { ...hello, tools: [tool] },
        /grounding/,
      );
    }
    for (const part of [
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
      { inline_data: { mime_type: 'audio/mp3', data: 'SUQz' } },
    ]) {
      const body = { contents: [{ role: 'user', parts: [{ text: 'transcribe' }, part] }] };
      await expectRefused(path('gemini-2.5-flash', 'streamGenerateContent', '?alt=sse'), body, /audio_input/);
    }
    await expectRefused(
      path('gemini-embedding-001', 'embedContent'),
      { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] } },
      /non_text_embedding_parts/,
    );
  });

  it('query parameters that could reshape the answer (`fields`, `alt=proto`, `alt=sse` on a whole answer)', async () => {
    await expectRefused(path('gemini-2.5-flash', 'generateContent', '?fields=candidates'), hello, /fields/);
    await expectRefused(path('gemini-2.5-flash', 'streamGenerateContent', '?alt=proto'), hello, /alt=proto/);
    await expectRefused(path('gemini-2.5-flash', 'generateContent', '?alt=sse'), hello, /alt=sse/);
    await expectRefused(
      path('gemini-2.5-flash', 'streamGenerateContent', '?alt=sse&alt=json'),
      hello,
      /twice/,
    );
  });
});

describe('errors and fallbacks on /gemini', () => {
  it("the provider's own 4xx passes through in its format, scrubbed, on one route, nothing charged", async () => {
    const before = await g.balanceMicros(funded.accountId);
    const sent = g.gemini.requests.length;
    // Google echoes an unknown field's name; this one is the gateway's own upstream key.
    const res = await post(path('gemini-2.5-flash', 'generateContent'), funded.key, {
      ...hello,
      [GEMINI_FAKE_KEY]: true,
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/Unknown name/) },
    });
    expect(text).not.toContain(GEMINI_FAKE_KEY);
    expect(g.gemini.requests.length).toBe(sent + 1);
    const gone = await post(path('missing-model', 'generateContent'), funded.key, hello);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a 5xx or a timeout on the first route falls back to the second before the client sees anything', async () => {
    for (const failure of [
      { kind: 'status', status: 503 },
      { kind: 'slow', delayMs: HEADERS_TIMEOUT_MS + 500 },
    ] as const) {
      g.gemini.script.next(failure);
      const res = await post(path('gemini-2.5-flash', 'generateContent'), funded.key, hello);
      expect(res.status, failure.kind).toBe(200);
      expect(((await res.json()) as { candidates: unknown[] }).candidates).toHaveLength(1);
      expect(g.gemini.requests.slice(-2).map((r) => r.url)).toEqual(
        FLASH_ROUTES.map((id) => `/v1beta/models/${id}:generateContent`),
      );
    }
  });

  it('every route 429 → 429 rate_limit_error; every route failing → 503 upstream_error; nothing charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    g.gemini.script.next({ kind: 'status', status: 429 }, 2);
    const limited = await post(
      path('gemini-2.5-flash', 'streamGenerateContent', '?alt=sse'),
      funded.key,
      hello,
    );
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    g.gemini.script.next({ kind: 'status', status: 500 }).next({ kind: 'status', status: 503 });
    const down = await post(path('gemini-2.5-flash', 'generateContent'), funded.key, hello);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).not.toBeNull();
    expect(await down.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a stream the provider breaks off mid-way is not charged (SSE cut or error event, JSON array cut)', async () => {
    const before = await g.balanceMicros(funded.accountId);
    for (const [mode, query] of [
      ['disconnect', '?alt=sse'],
      ['error-event', '?alt=sse'],
      ['disconnect', ''],
      ['error-event', ''],
    ] as const) {
      g.gemini.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode });
      const res = await post(path('gemini-2.5-flash', 'streamGenerateContent', query), funded.key, hello);
      expect(res.status, `${mode} ${query}`).toBe(200);
      await res.text().catch(() => '');
    }
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a client that goes away mid-stream: read on for STREAM_DRAIN_MS, then charged the usage reported and the text produced', async () => {
    const a = await createFundedKey(g.gateway.app, { topUp: 1_000 });
    // Two events (each with Gemini's running usageMetadata), then the provider stalls.
    g.gemini.script.next({ kind: 'stall-mid-stream', afterEvents: 2 });
    const controller = new AbortController();
    const res = await fetch(
      `${g.gateway.origin}${path('gemini-2.5-flash', 'streamGenerateContent', '?alt=sse')}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': a.key },
        body: JSON.stringify(hello),
        signal: controller.signal,
      },
    );
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    let text = '';
    while ((text.match(/^data: /gm) ?? []).length < 2) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as GeminiChunk);
    const lastUsage = events.at(-1)?.usageMetadata;
    expect(lastUsage).toBeDefined();
    // Cut when the bound passed: the usage it reported, its output at least a token per 4 characters produced.
    const reported = geminiUsage(lastUsage ?? {});
    const produced = events
      .flatMap((event) => event.candidates ?? [])
      .flatMap((candidate) => candidate.content?.parts ?? [])
      .reduce((sum, part) => sum + (part.text?.length ?? 0), 0);
    expect(produced).toBeGreaterThan(0);
    const outputTokens = Math.max(reported.outputTokens, Math.ceil(produced / 4));
    const cost = costOf(FLASH, { ...reported, outputTokens });
    expect(cost).toBeGreaterThan(0n);
    let balance = 0n;
    for (let i = 0; i < 100 && balance !== 1_000_000_000n - cost; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      balance = await g.balanceMicros(a.accountId);
    }
    expect(balance).toBe(1_000_000_000n - cost);
  });

  it('paths: other methods, versions and paths under /gemini → 404 endpoint_not_supported, no key needed', async () => {
    for (const [method, target] of [
      ['GET', path('gemini-2.5-flash', 'generateContent')],
      ['POST', path('gemini-2.5-flash', 'predict')],
      ['POST', path('gemini-2.5-flash', 'batchGenerateContent')],
      ['GET', '/gemini/v1beta/models'],
      ['POST', '/gemini/v1alpha/models/gemini-2.5-flash:generateContent'],
      ['POST', '/gemini/v1beta/tunedModels/mine:generateContent'],
    ] as const) {
      const res = await fetch(`${g.gateway.origin}${target}`, { method });
      expect(res.status, `${method} ${target}`).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'endpoint_not_supported' } });
    }
    const google = await post('/google/v1beta/models/gemini-2.5-flash:generateContent', funded.key, hello);
    expect(google.status).toBe(404);
    expect(await google.json()).toMatchObject({ error: { code: 'provider_not_found' } });
  });
});

describe('a gateway without a Google credential', () => {
  it('answers 404 provider_not_found under /gemini', async () => {
    const bare = await startGatewayWithFakes({ env: { GOOGLE_API_KEY: undefined } });
    try {
      const key = await bare.fundedClient();
      const res = await post(path('gemini-2.5-flash', 'generateContent'), key.key, hello, {}, bare);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'provider_not_found' } });
      expect(bare.gemini.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});

describe('a gateway whose Google key the provider refuses (400 API_KEY_INVALID)', () => {
  it('tries every route, then 503 upstream_error: the provider’s refusal never reaches the client', async () => {
    const refused = await startGatewayWithFakes({
      env: { ...CATALOGUE_ENV, GOOGLE_API_KEY: 'not-the-fake-key' },
    });
    try {
      const key = await refused.fundedClient();
      const before = await refused.balanceMicros(key.accountId);
      const sdk = genai(key.key, refused).models.generateContent({
        model: 'gemini-2.5-flash',
        contents: 'hi',
      });
      await expect(sdk).rejects.toMatchObject({ status: 503 });
      expect(refused.gemini.requests.map((r) => r.url)).toEqual(
        FLASH_ROUTES.map((id) => `/v1/models/${id}:generateContent`),
      );
      expect(await refused.balanceMicros(key.accountId)).toBe(before);
    } finally {
      await refused.close();
    }
  });
});
