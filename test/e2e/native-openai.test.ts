/**
 * OpenAI's own API through the gateway (`/openai/v1`: Responses, Chat Completions, Embeddings), with
 * the official OpenAI SDK pointed at `<gateway>/openai/v1`, against the fake OpenAI upstream: bodies
 * and streams pass through unchanged but for the model name and the credential, on the same keys,
 * limits and wallet as `/v1`, billed from the usage OpenAI reports.
 */
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import type { NativeTokenUsage } from '../../shared/src/native/native-usage.ts';
import { chatCompletionsUsage } from '../../shared/src/native/openai/chat-completions.ts';
import { embeddingsUsage } from '../../shared/src/native/openai/embeddings.ts';
import { responsesUsage } from '../../shared/src/native/openai/usage.ts';
import { DEFAULT_FAKE_KEY } from '../fakes/openai-upstream.ts';
import { admin, createFundedKey } from '../helpers/admin-client.ts';
import {
  type GatewayWithFakes,
  lastBody,
  startGatewayWithFakes,
  tomanMicros,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const GPT_4O = 'openai/gpt-4o';
const RESPONSES = '/openai/v1/responses';
const CHAT = '/openai/v1/chat/completions';
const EMBEDDINGS = '/openai/v1/embeddings';

const { g, funded } = useGatewayWithFakes();
// After-all hooks run last registered first: the ledger is checked before the gateway closes.
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
});

function openaiClient(key: string, gateway: GatewayWithFakes = g): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gateway.gateway.origin}/openai/v1`, maxRetries: 0 });
}

/** What the catalogue prices a usage at on `modelId`, in µIRT. */
function costOf(modelId: string, usage: NativeTokenUsage | undefined): bigint {
  const model = loadConfiguredCatalogue(g.gateway.config).get(modelId);
  if (model === undefined || usage === undefined) throw new Error(`no model or no usage for ${modelId}`);
  return nativeCost(model, usage);
}

/** A cost in µIRT as `X-Service-Cost` shows it (IRT). */
const costText = (micros: bigint) => String(Number(micros) / 1e6);

async function post(
  path: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  gateway: GatewayWithFakes = g,
) {
  return fetch(`${gateway.gateway.origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A POST read to its end with Node's HTTP client, which exposes the trailers fetch hides. */
function postForTrailers(
  path: string,
  key: string,
  body: unknown,
): Promise<{ status: number; text: string; trailers: NodeJS.Dict<string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${g.gateway.origin}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, trailers: res.trailers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The JSON `data` of every event of a Responses stream, in order. */
function streamEvents(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

/** Ids the fake numbers per request, so two answers to one request compare equal. */
const withoutIds = (text: string) => text.replace(/(resp|msg|rs|fc)_fake_\d+/g, '$1_ID');

const hello = { model: GPT_4O, input: 'Hello there' };

describe('Responses through the OpenAI SDK (baseURL <gateway>/openai/v1)', () => {
  it('create: the answer as OpenAI gave it, its usage charged once, the cost in X-Service-Cost', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const { data: response, response: raw } = await client.responses
      .create({ model: GPT_4O, input: 'Hello GPT', instructions: 'Be brief.' })
      .withResponse();
    expect(response.output_text).toBe('Echo: Hello GPT');
    expect(response.object).toBe('response');
    expect(response.usage).toMatchObject({ input_tokens: 5, output_tokens: 4 });
    const cost = costOf(GPT_4O, responsesUsage(response));
    expect(cost).toBeGreaterThan(0n);
    expect(raw.headers.get('x-service-cost')).toBe(costText(cost));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    // Upstream: the route's model id and the gateway's own credential, never the client's key.
    const sent = g.openai.requests.at(-1);
    expect(sent?.url).toBe('/v1/responses');
    expect(lastBody(g.openai)).toMatchObject({ model: 'gpt-4o', input: 'Hello GPT' });
    expect(sent?.headers.authorization).toBe(`Bearer ${DEFAULT_FAKE_KEY}`);
    expect(JSON.stringify(sent?.headers)).not.toContain(funded.key);
  });

  it('the body goes upstream byte for byte but for the model; the answer comes back byte for byte', async () => {
    const raw =
      '{ "input" : [{"role":"user","content":"caf\\u00e9 ☕"}],\n "model":"openai/gpt-4o", "store":false, "metadata":{"a":"1"}, "top_p":1.0 }';
    const res = await post(RESPONSES, funded.key, raw);
    expect(res.status).toBe(200);
    const answer = await res.text();
    expect(g.openai.requests.at(-1)?.body.toString('utf8')).toBe(raw.replace('"openai/gpt-4o"', '"gpt-4o"'));
    const direct = await fetch(`${g.openai.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEFAULT_FAKE_KEY}` },
      body: raw.replace('"openai/gpt-4o"', '"gpt-4o"'),
    });
    expect(withoutIds(answer)).toBe(withoutIds(await direct.text()));
  });

  it('stream: true: the documented events, numbered, unchanged; charged the final usage once, the cost as a trailer', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const body = { model: GPT_4O, input: 'stream me please', stream: true };
    const streamed = await postForTrailers(RESPONSES, funded.key, body);
    expect(streamed.status).toBe(200);
    const events = streamEvents(streamed.text);
    expect(events.map((e) => e.type).slice(0, 5)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
    ]);
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const final = events.at(-1)?.response;
    const cost = costOf(GPT_4O, responsesUsage(final));
    expect(streamed.trailers['x-service-cost']).toBe(costText(cost));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    const direct = await fetch(`${g.openai.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEFAULT_FAKE_KEY}` },
      body: JSON.stringify({ ...body, model: 'gpt-4o' }),
    });
    expect(withoutIds(streamed.text)).toBe(withoutIds(await direct.text()));
  });

  it('the SDK reads the stream: create({stream: true}) events and responses.stream() final response', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const stream = await client.responses.create({ model: GPT_4O, input: 'one two three', stream: true });
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Echo: one two three');
    const helper = client.responses.stream({ model: 'gpt-4o', input: 'via the helper' });
    const final = await helper.finalResponse();
    expect(final.output_text).toBe('Echo: via the helper');
    const cost = costOf(GPT_4O, responsesUsage(completed)) + costOf(GPT_4O, responsesUsage(final));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('reasoning summary items (and their encrypted content) pass through unchanged, streamed or not', async () => {
    const client = openaiClient(funded.key);
    const request = {
      model: 'gpt-5',
      input: 'Why is the sky blue?',
      reasoning: { effort: 'low' as const, summary: 'auto' as const },
      include: ['reasoning.encrypted_content' as const],
    };
    const whole = await client.responses.create(request);
    const reasoning = whole.output[0];
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Thinking about: Why is the sky blue?' }],
    });
    expect((reasoning as { encrypted_content?: string }).encrypted_content).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(whole.usage?.output_tokens_details.reasoning_tokens).toBe(16);
    const summaryDeltas: string[] = [];
    const helper = client.responses.stream(request);
    helper.on('response.reasoning_summary_text.delta', (event) => summaryDeltas.push(event.delta));
    const streamed = await helper.finalResponse();
    expect(summaryDeltas.join('')).toBe('Thinking about: Why is the sky blue?');
    expect(withoutIds(JSON.stringify(streamed.output[0]))).toBe(withoutIds(JSON.stringify(reasoning)));
    // The fake got the route's id, and what the catalogue id names (gpt-5's first route).
    expect(lastBody(g.openai)).toMatchObject({ model: 'gpt-5', reasoning: { summary: 'auto' } });
  });

  it('a response cut at max_output_tokens (incomplete) is charged what it used, streamed or not', async () => {
    const long = { model: GPT_4O, input: 'word '.repeat(60), max_output_tokens: 16 };
    const before = await g.balanceMicros(funded.accountId);
    const whole = await post(RESPONSES, funded.key, long);
    const response = (await whole.json()) as Record<string, unknown>;
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const streamed = await postForTrailers(RESPONSES, funded.key, { ...long, stream: true });
    const final = streamEvents(streamed.text).at(-1);
    expect(final?.type).toBe('response.incomplete');
    const cost = costOf(GPT_4O, responsesUsage(response));
    expect(streamed.trailers['x-service-cost']).toBe(costText(cost));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - 2n * cost);
  });

  it('function tools: the function_call item comes back as OpenAI shapes it, and its output is sent back', async () => {
    const client = openaiClient(funded.key);
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'lookup_city',
        description: 'Facts about a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
      },
    ];
    const first = await client.responses.create({ model: GPT_4O, input: 'lookup_city Paris', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'lookup_city', call_id: 'call_fake_0' });
    const second = await client.responses.create({
      model: GPT_4O,
      tools,
      input: [
        { role: 'user', content: 'lookup_city Paris' },
        ...(call === undefined ? [] : [call]),
        { type: 'function_call_output', call_id: 'call_fake_0', output: 'Paris: 2.1M people' },
      ],
    });
    expect(second.output_text).toBe('Tool result received: Paris: 2.1M people');
  });

  it('a parameter the model does not take is refused with 400 naming it, nothing sent; at its one value it is sent', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const calls = g.openai.requests.length;
    const error = await client.responses
      .create({ model: 'openai/gpt-5', input: 'hi', temperature: 0, top_p: 1 })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'The model `openai/gpt-5` does not take `temperature` (only 1).',
    });
    // At the model's one value, or with reasoning off on GPT-5.1, it is sent.
    const fixed = await post(RESPONSES, funded.key, { model: 'gpt-5', input: 'hi', temperature: 1 });
    expect(fixed.status).toBe(200);
    const lifted = await post(RESPONSES, funded.key, {
      model: 'gpt-5.1',
      input: 'hi',
      temperature: 0.2,
      reasoning: { effort: 'none' },
    });
    expect(lifted.status).toBe(200);
    expect(g.openai.requests.length).toBe(calls + 2);
    expect(await g.balanceMicros(funded.accountId)).toBeLessThan(before);
  });

  it('parts without a price are refused before sending (400 naming them), never billed at zero', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const calls = g.openai.requests.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ type: 'web_search' }] }, 'web_search'],
      [{ tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'file_search_calls'],
      [{ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }, 'code_interpreter_calls'],
      [{ tools: [{ type: 'image_generation' }] }, 'image_generation_calls'],
      [{ background: true }, 'background_responses'],
      [{ service_tier: 'flex' }, 'flex_tier_requests'],
    ];
    for (const [extra, part] of cases) {
      const res = await post(RESPONSES, funded.key, { ...hello, ...extra });
      expect(res.status, part).toBe(400);
      const body = (await res.json()) as { error: { message: string; type: string } };
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toContain(part);
    }
    expect(g.openai.requests.length).toBe(calls);
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });
});

describe('Chat Completions and Embeddings under /openai/v1, passed through', () => {
  const messages = [{ role: 'user' as const, content: 'Hello chat' }];

  it('chat: OpenAI’s own completion (no gateway fields), fields /v1 would drop sent as is, billed from its usage', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages, store: true, metadata: { team: 'kites' } })
      .withResponse();
    expect(completion.choices[0]?.message.content).toBe('Echo: Hello chat');
    expect(completion).not.toHaveProperty('service');
    const cost = costOf(GPT_4O, chatCompletionsUsage(completion));
    expect(response.headers.get('x-service-cost')).toBe(costText(cost));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    // No identity prompt, nothing dropped: the body as sent.
    expect(lastBody(g.openai)).toEqual({
      model: 'gpt-4o',
      messages,
      store: true,
      metadata: { team: 'kites' },
    });
    expect(g.openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${DEFAULT_FAKE_KEY}`);
  });

  it('chat stream with include_usage: chunks unchanged, charged the usage chunk once, the cost as a trailer', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const stream = await client.chat.completions.create({
      model: GPT_4O,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Echo: Hello chat');
    const cost = costOf(GPT_4O, chatCompletionsUsage({ usage }));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
    const body = { model: GPT_4O, messages, stream: true, stream_options: { include_usage: true } };
    const streamed = await postForTrailers(CHAT, funded.key, body);
    expect(streamed.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(streamed.trailers['x-service-cost']).toBe(costText(cost));
  });

  it('chat refusals before sending: a stream without include_usage, an untaken parameter, a search model', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const calls = g.openai.requests.length;
    const noUsage = await post(CHAT, funded.key, { model: GPT_4O, messages, stream: true });
    expect(noUsage.status).toBe(400);
    expect(await noUsage.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('stream_options.include_usage'),
      },
    });
    const untaken = await post(CHAT, funded.key, {
      model: 'gpt-5',
      messages,
      temperature: 0,
      logit_bias: {},
    });
    expect(await untaken.json()).toMatchObject({
      error: { message: 'The model `openai/gpt-5` does not take `temperature` (only 1), `logit_bias`.' },
    });
    const search = await post(CHAT, funded.key, { model: 'gpt-4o-search-preview', messages });
    expect(search.status).toBe(400);
    expect(((await search.json()) as { error: { message: string } }).error.message).toContain('web_search');
    expect(g.openai.requests.length).toBe(calls);
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('embeddings: the SDK’s base64 answer decodes, billed the input tokens OpenAI reports', async () => {
    const client = openaiClient(funded.key);
    const before = await g.balanceMicros(funded.accountId);
    const { data: answer, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: ['alpha', 'beta gamma'] })
      .withResponse();
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0]?.embedding).toHaveLength(16);
    expect(answer.usage.prompt_tokens).toBe(5);
    expect(lastBody(g.openai)).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64' });
    const cost = costOf('openai/text-embedding-3-small', embeddingsUsage(answer));
    expect(cost).toBe(5n * 2_100n);
    expect(response.headers.get('x-service-cost')).toBe(costText(cost));
    expect(await g.balanceMicros(funded.accountId)).toBe(before - cost);
  });

  it('a model of another type is not found on an endpoint: 404 model_not_found', async () => {
    const onEmbeddings = await post(EMBEDDINGS, funded.key, { model: GPT_4O, input: 'x' });
    expect(onEmbeddings.status).toBe(404);
    expect(await onEmbeddings.json()).toMatchObject({ error: { code: 'model_not_found' } });
    const onResponses = await post(RESPONSES, funded.key, { model: 'text-embedding-3-small', input: 'x' });
    expect(onResponses.status).toBe(404);
  });
});

describe('admission on /openai: the same keys, checks and holds as /v1', () => {
  it('every key carrier of the spec admits a request', async () => {
    const carriers: Array<[string, Record<string, string>]> = [
      [RESPONSES, { authorization: `Bearer ${funded.key}` }],
      [RESPONSES, { 'x-api-key': funded.key }],
      [RESPONSES, { 'x-goog-api-key': funded.key }],
      [RESPONSES, { 'xi-api-key': funded.key }],
      [RESPONSES, { 'x-key': funded.key }],
      [`${RESPONSES}?key=${funded.key}`, {}],
    ];
    for (const [path, headers] of carriers) {
      const res = await post(path, undefined, hello, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
    // The upstream never sees the client's key, nor the query that carried it.
    expect(g.openai.requests.at(-1)?.url).toBe('/v1/responses');
  });

  it('no key or a bad key → 401; a model the key may not use → 403; on every endpoint', async () => {
    const limited = await createFundedKey(g.gateway.app, {
      topUp: 1_000,
      settings: { allowed_models: ['openai/gpt-4o-mini'] },
    });
    const bodies: Array<[string, Record<string, unknown>]> = [
      [RESPONSES, hello],
      [CHAT, { model: GPT_4O, messages: [{ role: 'user', content: 'hi' }] }],
      [EMBEDDINGS, { model: 'text-embedding-3-small', input: 'hi' }],
    ];
    for (const [path, body] of bodies) {
      const none = await post(path, undefined, body);
      expect(none.status, path).toBe(401);
      expect(await none.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      const bad = await post(path, 'hk-not-a-key', body);
      expect(bad.status, path).toBe(401);
      const refused = await post(path, limited.key, body);
      expect(refused.status, path).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: 'model_not_allowed' } });
    }
    expect((await post(RESPONSES, limited.key, { ...hello, model: 'gpt-4o-mini' })).status).toBe(200);
  });

  it('a key limited to other IPs → 403 ip_not_allowed', async () => {
    const fenced = await createFundedKey(g.gateway.app, {
      topUp: 1_000,
      settings: { allowed_ips: ['10.0.0.1'] },
    });
    const res = await post(RESPONSES, fenced.key, hello);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'ip_not_allowed' } });
  });

  it('the rate limit counts native and /v1 requests together → 429', async () => {
    const key = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: { rate_limit: 2 } });
    const v1 = await fetch(`${g.gateway.origin}/v1/balance`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(v1.status).toBe(200);
    expect((await post(RESPONSES, key.key, hello)).status).toBe(200);
    const third = await post(CHAT, key.key, { model: GPT_4O, messages: [{ role: 'user', content: 'hi' }] });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).not.toBeNull();
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('a wallet below min_required → 402 insufficient_quota; a spent monthly cap → 402 spend_limit_reached', async () => {
    const poor = await createFundedKey(g.gateway.app, { topUp: 1 });
    expect((await post(RESPONSES, poor.key, hello)).status).toBe(200); // about 5.5 IRT: now below 0
    await g.gateway.services.billing.flush();
    const broke = await post(RESPONSES, poor.key, hello);
    expect(broke.status).toBe(402);
    expect(await broke.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
    const capped = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: { monthly_cap: 1 } });
    expect((await post(RESPONSES, capped.key, hello)).status).toBe(200);
    await g.gateway.services.billing.flush();
    const over = await post(EMBEDDINGS, capped.key, { model: 'text-embedding-3-small', input: 'hi' });
    expect(over.status).toBe(402);
    expect(await over.json()).toMatchObject({ error: { code: 'spend_limit_reached' } });
  });

  /** Sends `first` (held while the fake answers slowly), and meanwhile a small request of another key. */
  async function meanwhile(first: Record<string, unknown>): Promise<{ first: number; other: Response }> {
    const a = await createFundedKey(g.gateway.app, { topUp: 1_000 });
    const b = await admin<{ key: string }>(g.gateway.app, 'POST', `/accounts/${a.accountId}/keys`, {});
    g.openai.script.next({ kind: 'slow', delayMs: 400 });
    const pending = post(RESPONSES, a.key, first);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const other = await post(RESPONSES, b.key, hello);
    return { first: (await pending).status, other };
  }

  it('holds: a request states its bound; one the wallet cannot pay is refused (402) before it is sent', async () => {
    // max_output_tokens 16,384 on gpt-4o may cost ~17,200 IRT: more than the 1,000 IRT wallet.
    const a = await createFundedKey(g.gateway.app, { topUp: 1_000 });
    const calls = g.openai.requests.length;
    const refused = await post(RESPONSES, a.key, { ...hello, max_output_tokens: 16_384 });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
    expect(g.openai.requests.length).toBe(calls);
    // A small request holds little: the account's other requests go on.
    const small = await meanwhile({ ...hello, max_output_tokens: 64 });
    expect([small.first, small.other.status]).toEqual([200, 200]);
  });

  it('holds: input stored at OpenAI (previous_response_id) is held as the whole context window', async () => {
    // gpt-4o's 128,000-token context at the input price is 33,600 IRT: more than the wallet. Its
    // input is not stated, so the hold is an estimate: admitted, and the account waits meanwhile.
    const stored = await meanwhile({ ...hello, max_output_tokens: 64, previous_response_id: 'resp_earlier' });
    expect(stored.first).toBe(200);
    expect(stored.other.status).toBe(402);
  });
});

describe('errors and fallbacks on /openai', () => {
  it('an unknown model → 404 model_not_found; a body that is not JSON, or names its model twice → 400', async () => {
    const unknown = await post(RESPONSES, funded.key, { ...hello, model: 'gpt-nope' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } });
    expect((await post(RESPONSES, funded.key, '{"model":')).status).toBe(400);
    const twice = await post(RESPONSES, funded.key, '{"model":"gpt-4o","input":"x","model":"gpt-4o-mini"}');
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it("OpenAI's own 4xx passes through in its format, held secrets scrubbed, and nothing is charged", async () => {
    const before = await g.balanceMicros(funded.accountId);
    // OpenAI quotes a bad enum value back; here it is the gateway's own upstream key.
    const res = await post(RESPONSES, funded.key, { ...hello, truncation: DEFAULT_FAKE_KEY });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain(DEFAULT_FAKE_KEY);
    expect(JSON.parse(text)).toEqual({
      error: {
        message: "Invalid value: '[redacted]'. Supported values are: 'auto' and 'disabled'.",
        type: 'invalid_request_error',
        param: 'truncation',
        code: 'invalid_value',
      },
    });
    const empty = await post(CHAT, funded.key, { model: GPT_4O, messages: [] });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: { param: 'messages', code: 'empty_array' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a 5xx or a 429 on the first route falls back to the second before the client sees anything', async () => {
    for (const [path, body] of [
      [RESPONSES, hello],
      [CHAT, { model: GPT_4O, messages: [{ role: 'user', content: 'hi' }] }],
    ] as const) {
      for (const status of [500, 503, 429]) {
        g.openai.script.next({ kind: 'status', status });
        const res = await post(path, funded.key, body);
        expect(res.status, `${path} ${status}`).toBe(200);
        const models = g.openai.requests.slice(-2).map((r) => JSON.parse(r.body.toString()).model);
        expect(models).toEqual(['gpt-4o', 'gpt-4o-2024-08-06']);
      }
    }
  });

  it('every route 429 → 429 rate_limit_error; every route failing → 503 upstream_error; nothing charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    g.openai.script.next({ kind: 'status', status: 429, retryAfterSeconds: 3 }, 2);
    const limited = await post(RESPONSES, funded.key, hello);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    g.openai.script.next({ kind: 'status', status: 500 }).next({ kind: 'status', status: 429 });
    const down = await post(CHAT, funded.key, { model: GPT_4O, messages: [{ role: 'user', content: 'hi' }] });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).not.toBeNull();
    expect(await down.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a stream OpenAI breaks off (cut, or an error event) is not charged', async () => {
    const before = await g.balanceMicros(funded.accountId);
    const streams: Array<[string, Record<string, unknown>]> = [
      [RESPONSES, { ...hello, stream: true }],
      [
        CHAT,
        {
          model: GPT_4O,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          stream_options: { include_usage: true },
        },
      ],
    ];
    for (const [path, body] of streams) {
      for (const mode of ['disconnect', 'error-event'] as const) {
        g.openai.script.next({ kind: 'fail-mid-stream', afterEvents: 3, mode });
        const res = await post(path, funded.key, body);
        expect(res.status).toBe(200);
        const text = await res.text().catch(() => '');
        if (mode === 'error-event') expect(text).toContain('server_error');
      }
    }
    expect(await g.balanceMicros(funded.accountId)).toBe(before);
  });

  it('a client that goes away mid-stream: its hold is released, nothing charged (a Responses stream reports usage last)', async () => {
    const a = await createFundedKey(g.gateway.app, { topUp: 20_000 });
    const b = await admin<{ key: string }>(g.gateway.app, 'POST', `/accounts/${a.accountId}/keys`, {});
    g.openai.script.next({ kind: 'stall-mid-stream', afterEvents: 3 });
    const controller = new AbortController();
    // Its bound (~17,200 IRT) fits the wallet: while it streams, another request of that bound waits.
    const res = await fetch(`${g.gateway.origin}${RESPONSES}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.key}` },
      body: JSON.stringify({ ...hello, stream: true, max_output_tokens: 16_384 }),
      signal: controller.signal,
    });
    const first = await res.body?.getReader().read();
    expect(new TextDecoder().decode(first?.value)).toContain('response.created');
    const large = { ...hello, max_output_tokens: 16_384 };
    expect((await post(RESPONSES, b.key, large)).status).toBe(402);
    controller.abort();
    let after: Response | undefined;
    for (let i = 0; i < 20 && (after === undefined || after.status === 402); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await post(RESPONSES, b.key, large);
    }
    expect(after?.status).toBe(200);
    // Only that request was charged: the stream reported no usage before the client left.
    const cost = tomanMicros(Number(after?.headers.get('x-service-cost')));
    expect(await g.balanceMicros(a.accountId)).toBe(20_000_000_000n - cost);
  });

  it('50 concurrent requests on a small wallet: the wallet equals its ledger, overshoot at most one request', async () => {
    const poor = await createFundedKey(g.gateway.app, { topUp: 60, settings: { rate_limit: 3000 } });
    const small = { ...hello, max_output_tokens: 16 };
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(RESPONSES, poor.key, small)));
    expect(answers.every((a) => a.status === 200 || a.status === 402)).toBe(true);
    const costs = answers
      .filter((a) => a.status === 200)
      .map((a) => tomanMicros(Number(a.headers.get('x-service-cost'))));
    expect(costs.length).toBeGreaterThan(1);
    expect(costs.length).toBeLessThan(50);
    const spent = costs.reduce((sum, c) => sum + c, 0n);
    const balance = await g.balanceMicros(poor.accountId);
    expect(balance).toBe(60_000_000n - spent);
    expect(-balance).toBeLessThan(costs[0] ?? 0n);
  });

  it('paths: other OpenAI paths → 404 endpoint_not_supported; a provider without a native API → provider_not_found', async () => {
    const unserved: Array<[string, string]> = [
      ['GET', '/openai/v1/models'],
      ['GET', '/openai/v1/responses/resp_123'],
      ['DELETE', '/openai/v1/responses/resp_123'],
      ['POST', '/openai/v1/responses/input_tokens'],
      ['POST', '/openai/v1/completions'],
      ['POST', '/openai/v1/images/generations'],
    ];
    for (const [method, path] of unserved) {
      const res = await fetch(`${g.gateway.origin}${path}`, { method });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'endpoint_not_supported' } });
    }
    const mistral = await post('/mistral/v1/chat/completions', funded.key, {});
    expect(await mistral.json()).toMatchObject({ error: { code: 'provider_not_found' } });
  });
});

describe('upstream timeouts', () => {
  it('a route that sends no headers in time moves on; every route timing out → 503, nothing charged', async () => {
    const slow = await startGatewayWithFakes({ env: { UPSTREAM_HEADERS_TIMEOUT_MS: '300' } });
    try {
      const key = await slow.fundedClient();
      slow.openai.script.next({ kind: 'slow', delayMs: 3_000 });
      const moved = await post(RESPONSES, key.key, hello, {}, slow);
      expect(moved.status).toBe(200);
      expect(slow.openai.requests).toHaveLength(2);
      const before = await slow.balanceMicros(key.accountId);
      slow.openai.script.next({ kind: 'slow', delayMs: 3_000 }, 2);
      const down = await post(RESPONSES, key.key, hello, {}, slow);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ error: { code: 'upstream_error' } });
      expect(await slow.balanceMicros(key.accountId)).toBe(before);
    } finally {
      await slow.close();
    }
  });
});

describe('a gateway without an OpenAI credential', () => {
  it('answers 404 provider_not_found under /openai', async () => {
    const bare = await startGatewayWithFakes({ env: { OPENAI_API_KEY: undefined } });
    try {
      const key = await bare.fundedClient();
      for (const path of [RESPONSES, CHAT, EMBEDDINGS]) {
        const res = await post(path, key.key, hello, {}, bare);
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: { code: 'provider_not_found' } });
      }
    } finally {
      await bare.close();
    }
  });
});

describe('a gateway whose OpenAI credential OpenAI refuses', () => {
  it('tries every route, then 503 upstream_error: the 401 never reaches the client, nothing charged', async () => {
    const refused = await startGatewayWithFakes({ env: { OPENAI_API_KEY: 'sk-not-the-fake-key' } });
    try {
      const key = await refused.fundedClient();
      const before = await refused.balanceMicros(key.accountId);
      const res = await post(RESPONSES, key.key, hello, {}, refused);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
      expect(refused.openai.requests).toHaveLength(2);
      expect(await refused.balanceMicros(key.accountId)).toBe(before);
    } finally {
      await refused.close();
    }
  });
});
