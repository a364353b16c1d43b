/**
 * Bad input (issue 4, "Bad input"): each gets a clear 4xx in the spec's error format (400, 404
 * for models, 413 for size), never a 500, never reaches a provider and is never charged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FundedClient,
  type GatewayWithFakes,
  rawPost,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

let g: GatewayWithFakes;
let funded: FundedClient;
let upstreamCalls: () => number;
let balanceBefore: number;
let callsBefore: number;

beforeAll(async () => {
  g = await startGatewayWithFakes();
  funded = await g.fundedClient();
  upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length + g.gemini.requests.length;
});
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
  await g.close();
});
beforeEach(async () => {
  g.resetScripts();
  balanceBefore = await g.balance(funded.accountId);
  callsBefore = upstreamCalls();
});

const JSON_TYPE = { 'content-type': 'application/json' };
const chat = (body: string | Uint8Array, headers: Record<string, string> = JSON_TYPE) =>
  rawPost(g.gateway.origin, '/v1/chat/completions', funded.key, body, headers);
const chatJson = (body: Record<string, unknown>) => chat(JSON.stringify(body));
const user = (content: unknown) => [{ role: 'user', content }];

/** The answer is the spec's error, and the request neither reached a provider nor cost anything. */
async function expectRefused(
  answer: { status: number; json: Record<string, unknown> },
  status: number,
  code = 'invalid_request_error',
): Promise<string> {
  expect(answer.status).toBe(status);
  const error = answer.json.error as { message: string; type: string; code: string; param: unknown };
  expect(error).toMatchObject({ type: 'invalid_request_error', code, param: null });
  expect(error.message.length).toBeGreaterThan(0);
  expect(upstreamCalls()).toBe(callsBefore);
  expect(await g.balance(funded.accountId)).toBe(balanceBefore);
  return error.message;
}

describe('bodies that are not a chat request', () => {
  it('refuses a body that is not JSON', async () => {
    await expectRefused(await chat('{"model": "openai/gpt-4o", "messages": [}'), 400);
  });

  it('refuses an empty body', async () => {
    await expectRefused(await chat(''), 400);
  });

  it('refuses a JSON body that is not an object', async () => {
    await expectRefused(await chat('[1, 2]'), 400);
  });

  it('refuses a text/plain body (parsed as text, so not an object) with 400', async () => {
    const body = JSON.stringify({ model: 'openai/gpt-4o', messages: user('hi') });
    await expectRefused(await chat(body, { 'content-type': 'text/plain' }), 400);
  });

  // A media type without a parser is a 400, as the spec's status list for chat says.
  it.each(['application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'refuses an unsupported content type: %s',
    async (type) => {
      const body = JSON.stringify({ model: 'openai/gpt-4o', messages: user('hi') });
      const answer = await chat(body, { 'content-type': type });
      await expectRefused(answer, 400);
    },
  );

  it('refuses a 10 MB body (above the 8 MB default MAX_BODY_BYTES) with 413, before any provider', async () => {
    const body = JSON.stringify({ model: 'openai/gpt-4o', messages: user('a'.repeat(10 * 1024 * 1024)) });
    const openaiBefore = g.openai.requests.length;
    await expectRefused(await chat(body), 413);
    expect(g.openai.requests.length).toBe(openaiBefore);
  });

  // Under the gateway's limit, a provider's own refusal as too large (Anthropic's 413
  // request_too_large) comes back as 413, uncharged and without fallback.
  it('passes a 5 MB body on; the provider refusing it as too large gives 413, uncharged', async () => {
    g.anthropic.script.next({ kind: 'status', status: 413 });
    const body = JSON.stringify({
      model: 'anthropic/claude-sonnet-4-5',
      messages: user('word '.repeat(1_200_000)),
    });
    expect(body.length).toBeGreaterThan(5 * 1024 * 1024);
    const anthropicBefore = g.anthropic.requests.length;
    const answer = await chat(body);
    expect(answer.status).toBe(413);
    expect(answer.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error' });
    expect(g.anthropic.requests.length - anthropicBefore).toBe(1);
    expect(await g.balance(funded.accountId)).toBe(balanceBefore);
  });
});

describe('fields that break the request table', () => {
  it('answers 400 model_required without a model', async () => {
    await expectRefused(await chatJson({ messages: user('hi') }), 400, 'model_required');
  });

  it('answers 404 model_not_found for an unknown model', async () => {
    const message = await expectRefused(
      await chatJson({ model: 'openai/gpt-99', messages: user('hi') }),
      404,
      'model_not_found',
    );
    expect(message).toContain('openai/gpt-99');
  });

  it('answers 404 model_not_found for an embedding model on the chat endpoint', async () => {
    await expectRefused(
      await chatJson({ model: 'openai/text-embedding-3-small', messages: user('hi') }),
      404,
      'model_not_found',
    );
  });

  it('refuses empty messages and a missing messages field', async () => {
    await expectRefused(await chatJson({ model: 'openai/gpt-4o', messages: [] }), 400);
    await expectRefused(await chatJson({ model: 'openai/gpt-4o' }), 400);
  });

  const WRONG_MESSAGES: Array<[string, unknown]> = [
    ['a string item', ['hello']],
    ['an item without a role', [{ content: 'hello' }]],
    ['an unknown role', [{ role: 'robot', content: 'hello' }]],
    ['content of the wrong type', [{ role: 'user', content: 42 }]],
    ['an unknown content part', [{ role: 'user', content: [{ type: 'video', video: 'x' }] }]],
    ['a text part without text', [{ role: 'user', content: [{ type: 'text' }] }]],
    ['tool_calls of the wrong shape', [{ role: 'assistant', content: null, tool_calls: [{ id: 'x' }] }]],
  ];
  it.each(WRONG_MESSAGES)('refuses a messages item of the wrong shape: %s', async (_name, messages) => {
    const message = await expectRefused(await chatJson({ model: 'openai/gpt-4o', messages }), 400);
    expect(message).toContain('messages');
  });

  const BAD_IMAGES = [
    'http://example.com/cat.png',
    'ftp://example.com/cat.png',
    'file:///etc/passwd',
    'cat.png',
    'data:text/plain;base64,aGk=',
  ];
  it.each(BAD_IMAGES)('refuses an image URL that is neither https nor a data URL: %s', async (url) => {
    for (const imageUrl of [{ url }, url]) {
      const content = [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: imageUrl },
      ];
      const message = await expectRefused(
        await chatJson({ model: 'openai/gpt-4o', messages: user(content) }),
        400,
      );
      expect(message).toContain('messages[0].content[1].image_url');
    }
  });

  it('refuses a tools schema that is not an object', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: 'a string' } }];
    const message = await expectRefused(
      await chatJson({ model: 'openai/gpt-4o', messages: user('hi'), tools }),
      400,
    );
    expect(message).toContain('parameters');
    await expectRefused(
      await chatJson({ model: 'openai/gpt-4o', messages: user('hi'), tools: { a: 1 } }),
      400,
    );
    await expectRefused(
      await chatJson({ model: 'openai/gpt-4o', messages: user('hi'), tools: [{ type: 'function' }] }),
      400,
    );
  });

  const BAD_FIELDS: Array<[string, Record<string, unknown>]> = [
    ['an unknown reasoning_effort', { reasoning_effort: 'extreme' }],
    ['temperature 2.5', { temperature: 2.5 }],
    ['temperature -0.1', { temperature: -0.1 }],
    ['temperature as a string (never coerced)', { temperature: '0.5' }],
    ['max_tokens as a string', { max_tokens: '10' }],
    ['max_tokens 0', { max_tokens: 0 }],
    ['stream as a string', { stream: 'true' }],
    ['an unknown response_format type', { response_format: { type: 'yaml' } }],
    ['json_schema without its schema object', { response_format: { type: 'json_schema' } }],
    ['an unknown tool_choice', { tool_choice: 'always' }],
    ['stop of the wrong type', { stop: 42 }],
    ['n as a float', { n: 1.5 }],
  ];
  it.each(BAD_FIELDS)('refuses %s', async (_name, fields) => {
    const field = Object.keys(fields)[0] ?? '';
    const message = await expectRefused(
      await chatJson({ model: 'openai/gpt-4o', messages: user('hi'), ...fields }),
      400,
    );
    expect(message).toContain(field);
  });

  it('refuses a bad field in a streamed request before the stream starts', async () => {
    const answer = await chatJson({
      model: 'openai/gpt-4o',
      messages: user('hi'),
      stream: true,
      temperature: 3,
    });
    await expectRefused(answer, 400);
  });

  it('refuses parameters the model does not take, naming them, streamed or not', async () => {
    for (const stream of [false, true]) {
      const message = await expectRefused(
        await chatJson({
          model: 'openai/gpt-5',
          messages: user('hi'),
          stream,
          temperature: 0,
          top_p: 1,
          logit_bias: { 50256: -100 },
        }),
        400,
      );
      expect(message).toBe('The model `openai/gpt-5` does not take `temperature` (only 1), `logit_bias`.');
    }
  });

  it('lets a parameter through at the one value the model takes, or when the effort lifts it', async () => {
    const gpt5 = await chatJson({ model: 'openai/gpt-5', messages: user('hi'), temperature: 1, top_p: 1 });
    expect(gpt5.status, JSON.stringify(gpt5.json)).toBe(200);
    const gpt51 = await chatJson({
      model: 'openai/gpt-5.1',
      messages: user('hi'),
      temperature: 0.2,
      reasoning_effort: 'none',
    });
    expect(gpt51.status).toBe(200);
    expect(upstreamCalls()).toBe(callsBefore + 2);
    balanceBefore = await g.balance(funded.accountId);
    callsBefore = upstreamCalls();
  });

  it('refuses through the SDK too, with the error the SDK exposes', async () => {
    const error = await funded.client.chat.completions
      .create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 2.5 })
      .catch((err: unknown) => err);
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_request_error',
    });
  });
});

describe('bad embeddings requests', () => {
  const embed = (body: Record<string, unknown>) =>
    rawPost(g.gateway.origin, '/v1/embeddings', funded.key, JSON.stringify(body));

  it('refuses a missing model, an unknown one, and a chat model', async () => {
    await expectRefused(await embed({ input: 'x' }), 400, 'model_required');
    await expectRefused(await embed({ model: 'openai/nope', input: 'x' }), 404, 'model_not_found');
    await expectRefused(await embed({ model: 'openai/gpt-4o', input: 'x' }), 404, 'model_not_found');
  });

  it('refuses empty or wrongly typed input and an unknown encoding_format', async () => {
    const model = 'openai/text-embedding-3-small';
    await expectRefused(await embed({ model, input: '' }), 400);
    await expectRefused(await embed({ model, input: [] }), 400);
    await expectRefused(await embed({ model, input: [1, 2] }), 400);
    await expectRefused(await embed({ model, input: 'x', encoding_format: 'int8' }), 400);
    await expectRefused(await embed({ model, input: 'x', dimensions: '4' }), 400);
  });
});
