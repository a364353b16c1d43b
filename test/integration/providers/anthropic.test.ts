import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../shared/src/providers/anthropic/index.ts';
import {
  type ChatChunk,
  type ChatRequest,
  type NormalizedUsage,
  UpstreamStreamError,
  type UpstreamTarget,
} from '../../../shared/src/providers/chat-types.ts';
import {
  ANTHROPIC_FAKE_KEY,
  type AnthropicUpstream,
  startAnthropicUpstream,
} from '../../fakes/anthropic-upstream.ts';

// biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
const chat = anthropicAdapter.chat!;
let upstream: AnthropicUpstream;

beforeAll(async () => {
  upstream = await startAnthropicUpstream({ cacheReadInputTokens: 3 });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

function target(model = 'claude-sonnet-4-5-20250929', apiKey = ANTHROPIC_FAKE_KEY): UpstreamTarget {
  return { baseUrl: upstream.url, apiKey, nativeModel: model };
}

function req(content: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content }], ...extra };
}

async function send(request: ChatRequest, stream: boolean, to = target(), signal?: AbortSignal) {
  const upstreamRequest = chat.request(request, to, { stream });
  return fetch(upstreamRequest.url, {
    method: 'POST',
    headers: upstreamRequest.headers,
    body: upstreamRequest.body,
    signal,
  });
}

async function complete(request: ChatRequest, to?: UpstreamTarget) {
  const response = await send(request, false, to);
  const text = await response.text();
  if (!response.ok)
    return {
      status: response.status,
      headers: response.headers,
      error: anthropicAdapter.errorMessage(response.status, text),
    };
  return { status: response.status, headers: response.headers, result: chat.response(JSON.parse(text)) };
}

interface Streamed {
  chunks: ChatChunk[];
  usage: NormalizedUsage | undefined;
  error?: unknown;
}

async function streamed(request: ChatRequest, to?: UpstreamTarget): Promise<Streamed> {
  const response = await send(request, true, to);
  expect(response.status).toBe(200);
  const translator = chat.stream();
  const chunks: ChatChunk[] = [];
  let error: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (error === undefined) {
        try {
          chunks.push(
            ...translator.onEvent(
              event.event === undefined ? { data: event.data } : { event: event.event, data: event.data },
            ),
          );
        } catch (err) {
          error = err;
        }
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    // biome-ignore lint/style/noNonNullAssertion: a 200 answer has a body.
    for await (const part of response.body!) parser.feed(decoder.decode(part, { stream: true }));
  } catch (err) {
    error ??= err;
  }
  return { chunks, usage: translator.finish().usage, error };
}

const text = (chunks: ChatChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
const reasoning = (chunks: ChatChunk[]) =>
  chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } },
  },
};

describe('Anthropic adapter against the fake Messages API', () => {
  it('completes a non-streamed chat with predictable usage', async () => {
    const { status, result } = await complete({
      ...req('Hello there friend'),
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there friend' },
      ],
    });
    expect(status).toBe(200);
    expect(result?.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Echo: Hello there friend' },
      finish_reason: 'stop',
    });
    // input words: 2 (system) + 3 (user) + 3 cached; output words: 4.
    expect(result?.usage).toEqual({
      inputTokens: 8,
      cachedInputTokens: 3,
      outputTokens: 4,
      reasoningTokens: 0,
    });
    const sent = upstream.requests.at(-1);
    expect(sent?.url).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_FAKE_KEY);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('streams a chat: role first, text deltas, finish chunk and usage', async () => {
    const { chunks, usage, error } = await streamed(req('Stream me please'));
    expect(error).toBeUndefined();
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(text(chunks)).toBe('Echo: Stream me please');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(usage).toEqual({ inputTokens: 6, cachedInputTokens: 3, outputTokens: 4, reasoningTokens: 0 });
  });

  it('round-trips a tool call, non-streamed and streamed', async () => {
    const ask = req('Use get_weather for Paris', { tools: [weatherTool] });
    const first = await complete(ask);
    const call = first.result?.choices[0]?.message.tool_calls?.[0];
    expect(first.result?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.function.name).toBe('get_weather');
    expect(JSON.parse(call?.function.arguments ?? '')).toEqual({
      city: 'Use get_weather for Paris',
      days: 4,
    });

    const { chunks } = await streamed(ask);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(new Set(deltas.map((d) => d.index))).toEqual(new Set([0]));
    expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join(''))).toEqual({
      city: 'Use get_weather for Paris',
      days: 4,
    });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');

    if (call === undefined) throw new Error('expected a tool call');
    const second = await complete({
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21C' },
      ],
    });
    expect(second.result?.choices[0]?.message.content).toBe('Tool result: Sunny, 21C');
  });

  it('returns JSON content for json_schema natively and through the forced tool', async () => {
    const schema = {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
      additionalProperties: false,
    };
    const asked = req('Say yes', {
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema } },
    });
    const native = await complete(asked);
    expect(JSON.parse(native.result?.choices[0]?.message.content ?? '')).toEqual({ answer: 'Say yes' });
    const forced = await complete(asked, target('claude-3-5-haiku-20241022'));
    expect(forced.result?.choices[0]).toMatchObject({ finish_reason: 'stop' });
    expect(JSON.parse(forced.result?.choices[0]?.message.content ?? '')).toEqual({ answer: 'Say yes' });
    const forcedStream = await streamed(asked, target('claude-3-5-haiku-20241022'));
    expect(JSON.parse(text(forcedStream.chunks))).toEqual({ answer: 'Say yes' });
  });

  it('returns reasoning, images, documents and citations', async () => {
    const thought = await streamed(req('Think hard', { reasoning_effort: 'medium' }));
    expect(reasoning(thought.chunks)).toBe('Thinking about: Think hard');
    const media = await complete({
      ...req(''),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
          ],
        },
      ],
    });
    expect(media.result?.choices[0]?.message.content).toBe('Echo: Describe [1 image(s), 1 document(s)]');
    const searched = await complete(req('Latest news', { web_search: true }));
    expect(searched.result?.citations?.map((c) => c.url)).toEqual([
      'https://example.com/fake-result-1',
      'https://example.com/fake-result-2',
    ]);
  });

  it('honours stop sequences and max_tokens', async () => {
    const stopped = await complete(req('alpha beta STOP gamma', { stop: 'STOP' }));
    expect(stopped.result?.choices[0]).toMatchObject({
      message: { content: 'Echo: alpha beta ' },
      finish_reason: 'stop',
    });
    const cut = await streamed(req('one two three four', { max_tokens: 2 }));
    expect(text(cut.chunks)).toBe('Echo: one ');
    expect(cut.chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it('maps error statuses to the documented bodies, with retry-after on 429', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const limited = await complete(req('x'));
    expect(limited).toMatchObject({
      status: 429,
      error: 'Number of request tokens has exceeded your per-minute rate limit.',
    });
    expect(limited.headers.get('retry-after')).toBe('7');
    upstream.script.next({ kind: 'status', status: 500 }).next({ kind: 'status', status: 529 });
    expect(await complete(req('x'))).toMatchObject({ status: 500, error: 'Internal server error' });
    expect(await complete(req('x'))).toMatchObject({ status: 529, error: 'Overloaded' });
    expect(await complete(req('x'), target(undefined, 'wrong-key'))).toMatchObject({
      status: 401,
      error: 'invalid x-api-key',
    });
    const noVersion = await fetch(`${upstream.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': ANTHROPIC_FAKE_KEY },
      body: '{}',
    });
    expect(anthropicAdapter.errorMessage(noVersion.status, await noVersion.text())).toBe(
      'anthropic-version: header is required',
    );
  });

  it('rejects a malformed request with 400 like Anthropic', async () => {
    const response = await fetch(`${upstream.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': ANTHROPIC_FAKE_KEY,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        messages: [{ role: 'system', content: 'x' }],
      }),
    });
    expect(response.status).toBe(400);
    expect(anthropicAdapter.errorMessage(400, await response.text())).toMatch(/^messages\.0\.role/);
  });

  it('turns a mid-stream error event into UpstreamStreamError with the provider status', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 4, mode: 'error-event' });
    const failed = await streamed(req('one two three four five'));
    expect(failed.error).toBeInstanceOf(UpstreamStreamError);
    expect(failed.error).toMatchObject({ status: 529, message: 'Overloaded' });
    expect(text(failed.chunks)).toBe('Echo: ');

    const apiErrors = await startAnthropicUpstream({ streamErrorType: 'api_error' });
    try {
      apiErrors.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode: 'error-event' });
      const failedAgain = await streamed(req('x'), { ...target(), baseUrl: apiErrors.url });
      expect(failedAgain.error).toMatchObject({ status: 500 });
    } finally {
      await apiErrors.close();
    }
  });

  it('surfaces a cut connection as a network error, not a translated error', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 3, mode: 'disconnect' });
    const cut = await streamed(req('cut me off'));
    expect(cut.error).toBeInstanceOf(Error);
    expect(cut.error).not.toBeInstanceOf(UpstreamStreamError);
  });

  it('sees a client abort of a stalled stream', async () => {
    upstream.script.next({ kind: 'stall-mid-stream', afterEvents: 3 });
    const before = upstream.abortedStreams();
    const controller = new AbortController();
    const response = await send(req('stall'), true, target(), controller.signal);
    // biome-ignore lint/style/noNonNullAssertion: a 200 answer has a body.
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await expect.poll(() => upstream.abortedStreams()).toBe(before + 1);
  });
});
