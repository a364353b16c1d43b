/**
 * Every native route bounds what `/v1` bounds (docs/native.md, "Bounds"): a value out of range is
 * refused with 400 in the provider's own error format, before anything is held or sent, counted
 * against the key's rate limit, nothing charged. The gateway runs the built-in catalogue (its real
 * prices) in front of the fake OpenAI, Anthropic, Gemini and ElevenLabs upstreams.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { type ElevenLabsUpstream, startElevenLabsUpstream } from '../fakes/elevenlabs-upstream.ts';
import { type CreatedKey, createFundedKey } from '../helpers/admin-client.ts';
import type { RecordedRequest } from '../helpers/fake-upstream.ts';
import { type GatewayWithFakes, lastBody, startGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';

const ELEVENLABS_KEY = 'test-elevenlabs-key';
const VOICE = '21m00Tcm4TlvDq8ikWAM';

let g: GatewayWithFakes;
let elevenlabs: ElevenLabsUpstream;
/** The probe's wallet: 100 IRT, on a key capped at 1 IRT a month (refused requests only). */
let small: CreatedKey;
/** A wallet for the requests that go through. */
let funded: CreatedKey;

beforeAll(async () => {
  elevenlabs = await startElevenLabsUpstream({ apiKey: ELEVENLABS_KEY });
  g = await startGatewayWithFakes({
    env: { ELEVENLABS_BASE_URL: elevenlabs.url, ELEVENLABS_API_KEY: ELEVENLABS_KEY },
  });
  small = await createFundedKey(g.gateway.app, {
    topUp: 100,
    settings: { monthly_cap: 1, rate_limit: 3000 },
  });
  funded = await createFundedKey(g.gateway.app, { topUp: 1_000_000 });
});
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
  await g.close();
  await elevenlabs.close();
});
beforeEach(() => {
  g.resetScripts();
  elevenlabs.script.reset();
});

/** Every key carrier works on every prefix: `x-api-key` for all. */
function post(path: string, body: unknown, key: string = small.key): Promise<Response> {
  return fetch(`${g.gateway.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

/** The fakes' recorded requests, all providers together. */
function upstreamRequests(): RecordedRequest[] {
  return [g.openai, g.anthropic, g.gemini, elevenlabs].flatMap((fake) => fake.requests);
}

/**
 * Sends `body` and checks the refusal: 400, the provider's error body (`expected`, matched), the
 * request counted against the rate limit, nothing sent upstream, nothing charged.
 */
async function expectRefused(path: string, body: unknown, expected: Record<string, unknown>) {
  const sent = upstreamRequests().length;
  const before = await g.balanceMicros(small.accountId);
  const res = await post(path, body);
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).toBe(400);
  expect(json).toMatchObject(expected);
  expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  expect(upstreamRequests().length).toBe(sent);
  expect(await g.balanceMicros(small.accountId)).toBe(before);
  return json;
}

const openaiError = (param: string, code: string) => ({
  error: { type: 'invalid_request_error', param, code, message: expect.stringContaining(`\`${param}\``) },
});

describe('/openai: the bounds of /v1 chat and embeddings', () => {
  const CHAT = '/openai/v1/chat/completions';
  const chat = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

  it('the probe: n=10000 with max_tokens=100 on a 100 IRT wallet capped at 1 IRT → 400, nothing charged', async () => {
    await expectRefused(
      CHAT,
      { ...chat, n: 10_000, max_tokens: 100 },
      openaiError('n', 'integer_above_max_value'),
    );
    await expectRefused(CHAT, { ...chat, n: 1_000_000 }, openaiError('n', 'integer_above_max_value'));
    expect(await g.balance(small.accountId)).toBe(100);
  });

  it('n, the output bounds and the sampling ranges as /v1 takes them', async () => {
    const gpt4o = loadConfiguredCatalogue(g.gateway.config).get('openai/gpt-4o');
    const refusals: Array<[Record<string, unknown>, string, string]> = [
      [{ n: 0 }, 'n', 'integer_below_min_value'],
      [{ n: 2.5 }, 'n', 'invalid_type'],
      [{ n: '16' }, 'n', 'invalid_type'],
      [{ max_tokens: -5 }, 'max_tokens', 'integer_below_min_value'],
      [{ max_completion_tokens: 0 }, 'max_completion_tokens', 'integer_below_min_value'],
      [{ max_tokens: (gpt4o?.max_output_tokens ?? 0) + 1 }, 'max_tokens', 'integer_above_max_value'],
      [{ temperature: 2.5 }, 'temperature', 'decimal_above_max_value'],
      [{ top_p: -0.1 }, 'top_p', 'decimal_below_min_value'],
      [{ presence_penalty: 3 }, 'presence_penalty', 'decimal_above_max_value'],
      [{ top_logprobs: 21 }, 'top_logprobs', 'integer_above_max_value'],
    ];
    for (const [fields, param, code] of refusals) {
      await expectRefused(CHAT, { ...chat, ...fields }, openaiError(param, code));
    }
    const limit = await expectRefused(CHAT, { ...chat, max_tokens: 20_000 }, {});
    expect(limit).toMatchObject({ error: { message: expect.stringContaining('16384 output tokens') } });
  });

  it('values inside the bounds go through, and null is "not given"', async () => {
    const res = await post(
      CHAT,
      { ...chat, n: 16, max_tokens: 5, temperature: null, seed: null },
      funded.key,
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(lastBody(g.openai)).toMatchObject({ n: 16, max_tokens: 5, temperature: null });
  });

  it('Responses: max_output_tokens and the sampling ranges', async () => {
    const body = { model: 'openai/gpt-4o', input: 'hi' };
    await expectRefused(
      '/openai/v1/responses',
      { ...body, max_output_tokens: 0 },
      openaiError('max_output_tokens', 'integer_below_min_value'),
    );
    await expectRefused(
      '/openai/v1/responses',
      { ...body, temperature: -1 },
      openaiError('temperature', 'decimal_below_min_value'),
    );
  });

  it('Embeddings: an empty input is refused as /v1 refuses it (it was answered at 0 IRT), and so are too many', async () => {
    const EMBEDDINGS = '/openai/v1/embeddings';
    const model = 'openai/text-embedding-3-small';
    await expectRefused(EMBEDDINGS, { model, input: '' }, openaiError('input', 'empty_string'));
    await expectRefused(EMBEDDINGS, { model, input: [] }, openaiError('input', 'empty_array'));
    await expectRefused(EMBEDDINGS, { model, input: ['a', ''] }, openaiError('input[1]', 'empty_string'));
    await expectRefused(EMBEDDINGS, { model, input: [[1, 2], []] }, openaiError('input[1]', 'empty_array'));
    await expectRefused(EMBEDDINGS, { model }, openaiError('input', 'invalid_type'));
    const many = Array.from({ length: 2049 }, () => 'a');
    await expectRefused(EMBEDDINGS, { model, input: many }, openaiError('input', 'array_above_max_length'));
    await expectRefused(
      EMBEDDINGS,
      { model, input: 'a', dimensions: 0 },
      openaiError('dimensions', 'integer_below_min_value'),
    );
  });
});

describe('/anthropic: max_tokens and the sampling ranges', () => {
  const MESSAGES = '/anthropic/v1/messages';
  const hello = { model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] };
  const anthropicError = (field: string) => ({
    type: 'error',
    error: { type: 'invalid_request_error', message: expect.stringContaining(`\`${field}\``) },
    request_id: expect.any(String),
  });

  it('a negative max_tokens is a 400 in Anthropic’s format (it was a 500), before any hold', async () => {
    await expectRefused(MESSAGES, { ...hello, max_tokens: -1 }, anthropicError('max_tokens'));
    await expectRefused(MESSAGES, { ...hello, max_tokens: 0 }, anthropicError('max_tokens'));
    await expectRefused(MESSAGES, { ...hello, max_tokens: 1.5 }, anthropicError('max_tokens'));
    await expectRefused(MESSAGES, { ...hello, max_tokens: '100' }, anthropicError('max_tokens'));
    await expectRefused(MESSAGES, { ...hello, max_tokens: 64_001 }, anthropicError('max_tokens'));
    await expectRefused(
      MESSAGES,
      { ...hello, max_tokens: 10, temperature: 2.5 },
      anthropicError('temperature'),
    );
  });

  it('max_tokens at the model’s limit goes through', async () => {
    const res = await post(MESSAGES, { ...hello, max_tokens: 64_000 }, funded.key);
    expect(res.status).toBe(200);
  });
});

describe('/gemini: candidateCount, maxOutputTokens and the texts to embed', () => {
  const generate = (method = 'generateContent') => `/gemini/v1beta/models/gemini-2.5-flash:${method}`;
  const hello = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
  const googleError = (field: string) => ({
    error: {
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining(`\`${field}\``),
      details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field }] }],
    },
  });

  it('generationConfig in either spelling, on both generation methods', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ generationConfig: { candidateCount: 10_000 } }, 'generationConfig.candidateCount'],
      [{ generationConfig: { candidateCount: 0 } }, 'generationConfig.candidateCount'],
      [{ generation_config: { candidate_count: 17 } }, 'generation_config.candidate_count'],
      [{ generationConfig: { maxOutputTokens: -1 } }, 'generationConfig.maxOutputTokens'],
      [{ generationConfig: { max_output_tokens: 65_537 } }, 'generationConfig.max_output_tokens'],
      [{ generationConfig: { temperature: 2.5 } }, 'generationConfig.temperature'],
      [{ generationConfig: 'hot' }, 'generationConfig'],
      // Both spellings of one field: which one Google reads is not the gateway's to guess.
      [{ generationConfig: { candidateCount: 1, candidate_count: 8 } }, 'generationConfig.candidateCount'],
      [{ generationConfig: {}, generation_config: { candidateCount: 8 } }, 'generationConfig'],
    ];
    for (const [fields, field] of cases) {
      await expectRefused(generate(), { ...hello, ...fields }, googleError(field));
    }
    await expectRefused(
      generate('streamGenerateContent'),
      { ...hello, generationConfig: { candidateCount: 10_000 } },
      googleError('generationConfig.candidateCount'),
    );
  });

  it('embedContent with an empty text (it was answered at 0 IRT), batches empty or too large', async () => {
    const embed = (method: string) => `/gemini/v1beta/models/gemini-embedding-001:${method}`;
    await expectRefused(
      embed('embedContent'),
      { content: { parts: [{ text: '' }] } },
      googleError('content.parts[0].text'),
    );
    await expectRefused(embed('embedContent'), { content: { parts: [] } }, googleError('content.parts'));
    await expectRefused(embed('batchEmbedContents'), { requests: [] }, googleError('requests'));
    const request = { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] } };
    await expectRefused(
      embed('batchEmbedContents'),
      { requests: [request, { ...request, content: { parts: [{ text: '' }] } }] },
      googleError('requests[1].content.parts[0].text'),
    );
    await expectRefused(
      embed('batchEmbedContents'),
      { requests: Array.from({ length: 2049 }, () => request) },
      googleError('requests'),
    );
    await expectRefused(
      embed('embedContent'),
      { content: { parts: [{ text: 'a' }] }, outputDimensionality: 0 },
      googleError('outputDimensionality'),
    );
  });
});

describe('/elevenlabs: the text of speech, the seconds of a sound', () => {
  const SPEECH = `/elevenlabs/v1/text-to-speech/${VOICE}`;
  const elevenlabsError = (status: string, field: string) => ({
    detail: { status, message: expect.stringContaining(`\`${field}\``) },
  });

  it('speech: an empty or over-long text, a speed /v1 refuses', async () => {
    await expectRefused(SPEECH, { text: '' }, elevenlabsError('invalid_request', 'text'));
    await expectRefused(`${SPEECH}/stream`, {}, elevenlabsError('invalid_request', 'text'));
    await expectRefused(
      SPEECH,
      { text: 'a'.repeat(10_001) },
      elevenlabsError('max_character_limit_exceeded', 'text'),
    );
    await expectRefused(
      SPEECH,
      { text: 'hi', voice_settings: { speed: 5 } },
      elevenlabsError('invalid_request', 'voice_settings.speed'),
    );
  });

  it('sound: duration_seconds outside 0.5 to 30, the seconds it is billed', async () => {
    for (const duration of [99, -1, 0.1, '5']) {
      await expectRefused(
        '/elevenlabs/v1/sound-generation',
        { text: 'Boom', duration_seconds: duration },
        elevenlabsError('invalid_request', 'duration_seconds'),
      );
    }
  });
});

it('a refused request counts against the rate limit like any invalid request', async () => {
  const key = await createFundedKey(g.gateway.app, { topUp: 1_000, settings: { rate_limit: 2 } });
  const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }], n: 17 };
  const first = await post('/openai/v1/chat/completions', body, key.key);
  expect(first.status).toBe(400);
  expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
  const hello = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
  const second = await post('/gemini/v1beta/models/gemini-2.5-flash:generateContent', hello, key.key);
  expect(second.status).toBe(200);
  const third = await post('/openai/v1/chat/completions', body, key.key);
  expect(third.status).toBe(429);
});
