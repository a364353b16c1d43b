/**
 * Input that used to reach pricing unvalidated (docs/money-core.md, "Admission" and "Hold sizing"):
 * negative or huge output bounds and choices, bodies nested 10,000 levels deep. Each is a 4xx in
 * the spec's format, never a 500, never charged; a request refused after authentication carries the
 * rate headers and counts against its key's window (429 first once it is exhausted).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from '../../../api/src/schemas/json-body.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, MIN_REQUIRED_BALANCE: '1' } });
  ({ key, accountId } = await createFundedKey(t.app, { topUp: 1_000, settings: { rate_limit: 3000 } }));
});
afterAll(async () => {
  expect(await t.services.billing.checkLedger()).toEqual([]);
  await t.close();
});

type ErrorBody = { error: { type: string; code: string; message: string; param: null } };

const post = (url: string, payload: string, apiKey = key) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload,
  });
const chat = (body: Record<string, unknown>, apiKey = key) =>
  post('/v1/chat/completions', JSON.stringify({ model: 'demo/chat', messages: hi, ...body }), apiKey);
const hi = [{ role: 'user', content: 'hi' }];

/** µIRT of the account, once the queued charges are written. */
async function balance(): Promise<bigint> {
  await t.services.billing.flush();
  return t.services.billing.balanceOf(accountId);
}

function expectInvalid(res: LightMyRequestResponse, field?: string): string {
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json<ErrorBody>();
  expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error', param: null });
  if (field !== undefined) expect(error.message).toContain(`\`${field}\``);
  return error.message;
}

/** A JSON array nested `depth` levels deep, as text (JSON.stringify would overflow building it). */
const nested = (depth: number, inner = '"x"') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('output bounds and choices of a chat request', () => {
  const CASES: Array<[string, Record<string, unknown>, string]> = [
    ['max_tokens -1', { max_tokens: -1 }, 'max_tokens'],
    ['max_completion_tokens -5', { max_completion_tokens: -5 }, 'max_completion_tokens'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'],
    [
      'max_tokens 4.5e15 (beyond what the admission script can add exactly)',
      { max_tokens: 4.5e15 },
      'max_tokens',
    ],
    ['max_tokens 1e12', { max_tokens: 1e12 }, 'max_tokens'],
    ['max_completion_tokens 1e300', { max_completion_tokens: 1e300 }, 'max_completion_tokens'],
    ['max_tokens 2.5', { max_tokens: 2.5 }, 'max_tokens'],
    ['n -1', { n: -1 }, 'n'],
    ['n 0', { n: 0 }, 'n'],
    ['n 4.5e15', { n: 4.5e15 }, 'n'],
    ['n 17', { n: 17 }, 'n'],
    ['seed 1e300', { seed: 1e300 }, 'seed'],
  ];
  it.each(CASES)('refuses %s with 400 naming the field, uncharged', async (_name, fields, field) => {
    const before = await balance();
    expectInvalid(await chat(fields), field);
    expect(await balance()).toBe(before);
  });

  it("refuses an output bound above the model's limit with 400 naming the limit; its limit is accepted", async () => {
    const message = expectInvalid(await chat({ max_tokens: 4_097 }), 'max_tokens');
    expect(message).toContain('4096');
    expect(message).toContain('demo/chat');
    expectInvalid(
      await chat({ max_completion_tokens: 8_193, model: 'demo/chat-reasoning' }),
      'max_completion_tokens',
    );
    expect((await chat({ max_tokens: 4_096, n: 16 })).statusCode).toBe(200);
    expect((await chat({ max_completion_tokens: 8_192, model: 'demo/chat-reasoning' })).statusCode).toBe(200);
  });
});

describe('bounds of an embedding request', () => {
  const embed = (body: Record<string, unknown>) =>
    post('/v1/embeddings', JSON.stringify({ model: 'demo/embedding', input: 'hello', ...body }));
  it.each([
    ['dimensions -1', { dimensions: -1 }, 'dimensions'],
    ['dimensions 1e20', { dimensions: 1e20 }, 'dimensions'],
    ['an input of 2,049 items', { input: Array.from({ length: 2_049 }, () => 'a') }, 'input'],
  ])('refuses %s with 400', async (_name, fields, field) => {
    expectInvalid(await embed(fields), field);
  });

  it('answers a valid one', async () => {
    expect((await embed({ input: ['a', 'b'] })).statusCode).toBe(200);
  });
});

describe('bodies nested 10,000 levels deep', () => {
  it('refuses deep `messages` on the chat endpoint with 400, not 500', async () => {
    const before = await balance();
    expectInvalid(await post('/v1/chat/completions', `{"model":"demo/chat","messages":${nested(10_000)}}`));
    // Deep inside an otherwise valid message, and deep in a field the gateway drops.
    const content = `[{"role":"user","content":${nested(10_000, '{"type":"text","text":"hi"}')}}]`;
    expectInvalid(await post('/v1/chat/completions', `{"model":"demo/chat","messages":${content}}`));
    const dropped = `{"model":"demo/chat","messages":[{"role":"user","content":"hi"}],"extra":${nested(10_000)}}`;
    expectInvalid(await post('/v1/chat/completions', dropped));
    expect(await balance()).toBe(before);
  });

  it('refuses deep `input` on the embeddings endpoint with 400, not 500', async () => {
    expectInvalid(await post('/v1/embeddings', `{"model":"demo/embedding","input":${nested(10_000)}}`));
  });

  it('refuses a deep tool schema (serialized towards the provider) with 400', async () => {
    let schema = '{"type":"string"}';
    for (let i = 0; i < 5_000; i++) schema = `{"type":"object","properties":{"a":${schema}}}`;
    const tools = `[{"type":"function","function":{"name":"f","parameters":${schema}}}]`;
    expectInvalid(
      await post(
        '/v1/chat/completions',
        `{"model":"demo/chat","messages":[{"role":"user","content":"f"}],"tools":${tools}}`,
      ),
    );
  });

  it('refuses a deep body on a media route with 400 too (the body cannot be read), and on the admin API', async () => {
    expectInvalid(await post('/v1/images/generations', `{"prompt":${nested(10_000)}}`));
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: `{"email":${nested(10_000)}}`,
    });
    expectInvalid(res);
  });

  it(`accepts a body exactly ${MAX_JSON_DEPTH} levels deep and refuses one level more`, async () => {
    // The body object is level 1, so the dropped field adds MAX_JSON_DEPTH - 1 levels.
    const body = (depth: number) =>
      `{"model":"demo/chat","messages":[{"role":"user","content":"hi"}],"extra":${nested(depth - 1)}}`;
    expect((await post('/v1/chat/completions', body(MAX_JSON_DEPTH))).statusCode).toBe(200);
    const message = expectInvalid(await post('/v1/chat/completions', body(MAX_JSON_DEPTH + 1)));
    expect(message).toContain(String(MAX_JSON_DEPTH));
  });

  it('measures depth on the text: brackets inside strings and escaped quotes do not count', () => {
    const text = (inner: string) => `{"a":"${inner}","b":[[1]]}`;
    expect(jsonNestingExceeds(text('[[[[[[[[[['), 3)).toBe(false);
    expect(jsonNestingExceeds(text('\\"[[[[[[[[\\\\'), 3)).toBe(false);
    expect(jsonNestingExceeds(text('\\\\'), 2)).toBe(true);
    expect(jsonNestingExceeds(nested(4_000_000), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestingExceeds('{"unterminated', 1)).toBe(false);
  });
});

describe('a request refused after authentication', () => {
  it('carries the rate headers, counts against the window, and answers 429 once the window is spent', async () => {
    const k = await createFundedKey(t.app, { topUp: 1_000, settings: { rate_limit: 3 } });
    const remaining: string[] = [];
    for (const fields of [{ max_tokens: -1 }, { n: 0 }, { temperature: 3 }]) {
      const res = await chat(fields, k.key);
      expectInvalid(res);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    // The window is spent: 429 before the 400 of another invalid request, and for a valid one.
    for (const res of [await chat({ max_tokens: -1 }, k.key), await chat({}, k.key)]) {
      expect(res.statusCode).toBe(429);
      expect(res.json<ErrorBody>().error.code).toBe('rate_limit_exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
    }
  });

  it('does so for a body that cannot be read: malformed, nested too deep, of another type, too large', async () => {
    const k = await createFundedKey(t.app, { topUp: 1_000, settings: { rate_limit: 4 } });
    const before = await t.services.billing.balanceOf(k.accountId);
    const send = (contentType: string, payload: string, apiKey = k.key) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
        payload,
      });
    const tooDeep = `{"model":"demo/chat","messages":${nested(MAX_JSON_DEPTH + 1, '{}')}}`;
    const tooLarge = JSON.stringify({
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'x'.repeat(9e6) }],
    });
    const unreadable: Array<[number, string, string]> = [
      [400, 'application/json', '{"model":'],
      [400, 'application/json', tooDeep],
      [400, 'application/xml', '<chat/>'],
      [413, 'application/json', tooLarge],
    ];
    const remaining: string[] = [];
    for (const [status, contentType, payload] of unreadable) {
      const res = await send(contentType, payload);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json<ErrorBody>().error).toMatchObject({ type: 'invalid_request_error', param: null });
      expect(res.headers['x-ratelimit-limit']).toBe('4');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['3', '2', '1', '0']);
    const spent = await send('application/json', '{"model":');
    expect(spent.statusCode).toBe(429);
    expect(spent.json<ErrorBody>().error.code).toBe('rate_limit_exceeded');
    expect(Number(spent.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A caller without a valid key still learns nothing of its body, nor of any window.
    const anonymous = await send('application/json', '{"model":', `hk-${'x'.repeat(43)}`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBeUndefined();
    expect(await balance()).toBeGreaterThan(0n);
    expect(await t.services.billing.balanceOf(k.accountId)).toBe(before);
  });

  it('does so for the query of GET routes, the model limit check and the media 422 too', async () => {
    const k = await createFundedKey(t.app, { topUp: 1_000, settings: { rate_limit: 10 } });
    const usage = await t.app.inject({
      method: 'GET',
      url: '/v1/usage?days=0',
      headers: { authorization: `Bearer ${k.key}` },
    });
    expectInvalid(usage, 'days');
    expect(usage.headers['x-ratelimit-remaining']).toBe('9');
    const tooLong = await chat({ max_tokens: 5_000 }, k.key);
    expectInvalid(tooLong, 'max_tokens');
    expect(tooLong.headers['x-ratelimit-remaining']).toBe('8');
    const image = await post('/v1/images/generations', JSON.stringify({ prompt: 'a cat', n: 5 }), k.key);
    expect(image.statusCode).toBe(422);
    expect(image.json()).toMatchObject({ errors: { n: [expect.any(String)] } });
    expect(image.headers['x-ratelimit-remaining']).toBe('7');
  });

  it('is answered as invalid before checks 5–7: an empty wallet or a model outside the key list gets the 400/422', async () => {
    const empty = await createFundedKey(t.app, { topUp: 0 });
    expectInvalid(await chat({ max_tokens: -1 }, empty.key), 'max_tokens');
    expect((await chat({}, empty.key)).statusCode).toBe(402);
    const image = await post('/v1/images/generations', JSON.stringify({ prompt: 'a cat', n: 0 }), empty.key);
    expect(image.statusCode).toBe(422);
    const video = await post(
      '/v1/videos',
      JSON.stringify({ model: 'demo/video', prompt: 'p', duration: 0 }),
      empty.key,
    );
    expectInvalid(video, 'duration');
    expect(video.headers['x-ratelimit-limit']).toBe('60');

    const listed = await createFundedKey(t.app, {
      topUp: 1_000,
      settings: { allowed_models: ['demo/chat'] },
    });
    expectInvalid(await chat({ model: 'demo/chat-reasoning', n: 99 }, listed.key), 'n');
    const refused = await chat({ model: 'demo/chat-reasoning' }, listed.key);
    expect(refused.statusCode).toBe(403);
  });

  it('still answers 401 to a caller without a valid key, whatever its body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'demo/chat', messages: hi, max_tokens: -1 }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('the model of a video request', () => {
  it('is required with its own code, as for chat and embeddings: 400 model_required, then 404 for a wrong one', async () => {
    const k = await createFundedKey(t.app, { topUp: 1_000 });
    const before = await t.services.billing.balanceOf(k.accountId);
    const video = (fields: Record<string, unknown>) =>
      post('/v1/videos', JSON.stringify({ prompt: 'a kite', ...fields }), k.key);
    for (const fields of [{}, { model: null }, { model: '' }, { model: '  ' }]) {
      const res = await video(fields);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<ErrorBody>().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'model_required',
      });
      expect(res.headers['x-ratelimit-limit']).toBe('60');
    }
    for (const model of ['demo/nope', 'demo/chat']) {
      const res = await video({ model });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json<ErrorBody>().error.code).toBe('model_not_found');
    }
    expect((await video({ model: 'demo/video', duration: 0 })).statusCode).toBe(400);
    await t.services.billing.flush();
    expect(await t.services.billing.balanceOf(k.accountId)).toBe(before);
  });
});

describe('a null model', () => {
  it('is a missing one on chat and embeddings (400 model_required), and not given on images', async () => {
    const k = await createFundedKey(t.app, { topUp: 1_000 });
    const before = await t.services.billing.balanceOf(k.accountId);
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['/v1/chat/completions', { model: null, messages: hi }],
      ['/v1/chat/completions', { model: null, messages: hi, stream: true, temperature: null }],
      ['/v1/embeddings', { model: null, input: 'x' }],
    ];
    for (const [path, body] of bodies) {
      const res = await post(path, JSON.stringify(body), k.key);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<ErrorBody>().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'model_required',
      });
      expect(res.headers['x-ratelimit-limit']).toBe('60');
    }
    // An image request's nullable fields sent as null are not given: it is valid (the default
    // model, one image), so an empty wallet answers 402, where a wrong type answers 422.
    const empty = await createFundedKey(t.app, { topUp: 0 });
    const nulls = {
      model: null,
      n: null,
      size: null,
      quality: null,
      background: null,
      response_format: null,
    };
    const image = await post(
      '/v1/images/generations',
      JSON.stringify({ prompt: 'a cat', ...nulls }),
      empty.key,
    );
    expect(image.statusCode, image.body).toBe(402);
    expect(image.json<ErrorBody>().error.code).toBe('insufficient_quota');
    const wrong = await post(
      '/v1/images/generations',
      JSON.stringify({ prompt: 'a cat', n: 'two' }),
      empty.key,
    );
    expect(wrong.statusCode).toBe(422);
    // A model of the wrong type is still a type error (a number is not a missing model).
    const numeric = await post('/v1/embeddings', JSON.stringify({ model: 7, input: 'x' }), k.key);
    expect(numeric.statusCode).toBe(400);
    expect(numeric.json<ErrorBody>().error.code).toBe('invalid_request_error');
    await t.services.billing.flush();
    expect(await t.services.billing.balanceOf(k.accountId)).toBe(before);
  });
});

describe('holds of admitted requests', () => {
  it('are released when the handler refuses the request (an output bound above the model limit)', async () => {
    // 2 IRT against a floor of 1: the refused request was held at the model's maximum (about
    // 8.7 IRT); were that hold left, every later request of the account would be refused (402).
    const k = await createFundedKey(t.app, { topUp: 2 });
    expectInvalid(await chat({ max_tokens: 100_000 }, k.key), 'max_tokens');
    // The release runs once the answer is sent: give it a moment, far below the hold's life.
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await chat({ max_tokens: 8 }, k.key)).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe(200);
  });
});

describe('a cost bound beyond what a hold can represent (a custom catalogue with extreme prices)', () => {
  let extreme: TestApp;
  beforeAll(async () => {
    const file = JSON.parse(
      readFileSync(new URL('../../../shared/src/catalogue/models.json', import.meta.url), 'utf8'),
    ) as { models: Array<{ id: string; list_price_usd: Record<string, unknown> }> };
    const demo = file.models.find((m) => m.id === 'demo/chat');
    if (demo === undefined) throw new Error('demo/chat is missing from the catalogue');
    // 10^9 USD per 1M output tokens: one token costs 1.05·10^14 µIRT, 4,096 of them about 2^58.
    demo.list_price_usd = { ...demo.list_price_usd, output: 1e9 };
    const path = join(mkdtempSync(join(tmpdir(), 'extreme-catalogue-')), 'models.json');
    writeFileSync(path, JSON.stringify(file));
    extreme = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, CATALOGUE_PATH: path } });
  });
  afterAll(() => extreme.close());

  it('is refused with 400 (counted, with the rate headers), never held at less; a small bound passes', async () => {
    // Enough to pay one output token (1.05·10^8 IRT): a bounded request must fit the wallet.
    const k = await createFundedKey(extreme.app, { topUp: 200_000_000 });
    const send = (max_tokens: number) =>
      extreme.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${k.key}` },
        payload: { model: 'demo/chat', messages: hi, max_tokens },
      });
    const refused = await send(4_096);
    expect(expectInvalid(refused)).toContain('too large to reserve');
    expect(refused.headers['x-ratelimit-remaining']).toBe('59');
    // One output token: 1.05·10^14 µIRT, below the bound: admitted (and charged what it costs).
    expect((await send(1)).statusCode).toBe(200);
  });
});
