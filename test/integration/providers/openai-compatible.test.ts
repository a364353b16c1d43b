import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChatChunk,
  type ChatRequest,
  type NormalizedUsage,
  type ProviderAdapter,
  type UpstreamRequest,
  UpstreamStreamError,
  type UpstreamTarget,
} from '../../../shared/src/providers/chat-types.ts';
import { groqAdapter } from '../../../shared/src/providers/groq/index.ts';
import { mistralAdapter } from '../../../shared/src/providers/mistral/index.ts';
import { openaiAdapter } from '../../../shared/src/providers/openai/index.ts';
import { openAICompatibleAdapter } from '../../../shared/src/providers/openai-compatible/create-openai-compatible.ts';
import { xaiAdapter } from '../../../shared/src/providers/xai/index.ts';
import { FAKE_CITATION_URL, fakeVector } from '../../fakes/openai-fake-answers.ts';
import { DEFAULT_FAKE_KEY, type OpenAIUpstream, startOpenAIUpstream } from '../../fakes/openai-upstream.ts';

let upstream: OpenAIUpstream;
beforeAll(async () => {
  upstream = await startOpenAIUpstream();
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

const target = (
  nativeModel = 'gpt-4o-mini',
  apiKey = DEFAULT_FAKE_KEY,
  baseUrl = upstream.url,
): UpstreamTarget => ({
  baseUrl,
  apiKey,
  nativeModel,
});

function send(request: UpstreamRequest, signal?: AbortSignal): Promise<Response> {
  return fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal });
}

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'openai/gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content },
  ],
  ...extra,
});

const weatherTools: ChatRequest['tools'] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];

function chatOf(adapter: ProviderAdapter) {
  if (adapter.chat === undefined) throw new Error('adapter has no chat');
  return adapter.chat;
}

async function complete(adapter: ProviderAdapter, request: ChatRequest, to = target()) {
  const response = await send(chatOf(adapter).request(request, to, { stream: false }));
  expect(response.status).toBe(200);
  return chatOf(adapter).response(await response.json());
}

async function stream(
  adapter: ProviderAdapter,
  request: ChatRequest,
  to = target(),
  chunks: ChatChunk[] = [],
): Promise<{ chunks: ChatChunk[]; usage?: NormalizedUsage }> {
  const response = await send(chatOf(adapter).request(request, to, { stream: true }));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const translator = chatOf(adapter).stream();
  const events = response.body
    ?.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const event of events ?? [])
    chunks.push(...translator.onEvent({ event: event.event, data: event.data }));
  return { chunks, usage: translator.finish().usage };
}

function text(chunks: ChatChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

function lastBody(): Record<string, unknown> {
  const request = upstream.requests.at(-1);
  return JSON.parse(request?.body.toString('utf8') ?? '{}');
}

describe('OpenAI adapter against the fake OpenAI upstream', () => {
  it('completes a non-streamed chat with predictable usage', async () => {
    const result = await complete(openaiAdapter, ask('Hello there', { max_tokens: 50 }));
    expect(result.choices[0]?.message.content).toBe('Echo: Hello there');
    // prompt: ceil(("Be brief." + "Hello there").length / 4) = 5; completion: ceil(17 / 4) = 5
    expect(result.usage).toEqual({
      inputTokens: 5,
      cachedInputTokens: 0,
      outputTokens: 5,
      reasoningTokens: 0,
    });
    expect(upstream.requests.at(-1)?.url).toBe('/v1/chat/completions');
    expect(lastBody()).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 50 });
  });

  it('streams, asks for usage itself, and never forwards the usage-only chunk', async () => {
    const { chunks, usage } = await stream(openaiAdapter, ask('Tell me about streams'));
    expect(lastBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(text(chunks)).toBe('Echo: Tell me about streams');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(usage).toEqual({ inputTokens: 8, cachedInputTokens: 0, outputTokens: 7, reasoningTokens: 0 });
  });

  it('reports cached prompt tokens for a long prompt', async () => {
    const result = await complete(openaiAdapter, ask('z'.repeat(4800)));
    // prompt ceil(4809 / 4) = 1203 tokens -> 1024 + one 128-token block cached
    expect(result.usage.inputTokens).toBe(1203);
    expect(result.usage.cachedInputTokens).toBe(1152);
  });

  it('returns tool calls, non-streamed and streamed with stable indexes', async () => {
    const request = ask('Use get_weather and get_time for Paris', { tools: weatherTools });
    const result = await complete(openaiAdapter, request);
    expect(result.choices[0]?.finish_reason).toBe('tool_calls');
    expect(result.choices[0]?.message.tool_calls?.map((call) => call.function.name)).toEqual([
      'get_weather',
      'get_time',
    ]);
    const { chunks } = await stream(openaiAdapter, request);
    const args = ['', ''];
    const ids: string[] = [];
    for (const chunk of chunks) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        args[call.index] += call.function?.arguments ?? '';
        if (call.id) ids[call.index] = call.id;
      }
    }
    expect(ids).toEqual(['call_fake_0', 'call_fake_1']);
    expect(args).toEqual(result.choices[0]?.message.tool_calls?.map((call) => call.function.arguments));
    expect(JSON.parse(args[0] ?? '')).toEqual({ input: 'Use get_weather and get_time for Paris' });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('maps web_search to web_search_options and returns citations', async () => {
    const result = await complete(openaiAdapter, ask('News?', { web_search: true }));
    expect(lastBody()).toMatchObject({ web_search_options: {} });
    expect(lastBody()).not.toHaveProperty('web_search');
    expect(result.citations).toEqual([{ title: 'Fake source', url: FAKE_CITATION_URL }]);
    const { chunks } = await stream(openaiAdapter, ask('News?', { web_search: true }));
    expect(chunks.flatMap((chunk) => chunk.citations ?? [])).toEqual([
      { title: 'Fake source', url: FAKE_CITATION_URL },
    ]);
  });

  it('answers upstream error statuses with client-safe messages', async () => {
    const errorFor = async (to: UpstreamTarget, request = ask('hi')) => {
      const response = await send(chatOf(openaiAdapter).request(request, to, { stream: false }));
      return {
        status: response.status,
        message: openaiAdapter.errorMessage(response.status, await response.text()),
        response,
      };
    };
    const wrongKey = await errorFor(target('gpt-4o-mini', 'sk-wrong-key-1234'));
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.message).toBe(
      'Incorrect API key provided: [redacted]. You can find your API key at [url]',
    );
    const missing = await errorFor(target('missing-model'));
    expect(missing).toMatchObject({
      status: 404,
      message: 'The model `missing-model` does not exist or you do not have access to it.',
    });
    const empty = await errorFor(target(), { model: 'x', messages: [] });
    expect(empty.status).toBe(400);
    expect(empty.message).toContain("Invalid 'messages': empty array.");

    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const limited = await errorFor(target());
    expect(limited.status).toBe(429);
    expect(limited.response.headers.get('retry-after')).toBe('7');
    expect(limited.message).not.toMatch(/https?:|openai\.com/);
    for (const status of [500, 503]) {
      upstream.script.next({ kind: 'status', status });
      expect((await errorFor(target())).status).toBe(status);
    }
  });

  it('throws UpstreamStreamError with status 500 for the in-stream error event, after the first chunks', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode: 'error-event' });
    const received: ChatChunk[] = [];
    const failure = await stream(openaiAdapter, ask('This will fail midway'), target(), received).catch(
      (error) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamStreamError);
    expect(failure).toMatchObject({
      status: 500,
      message: 'The server had an error while processing your request. Sorry about that!',
    });
    expect(received).toHaveLength(2);
  });

  it('leaves usage undefined when the connection is cut mid-stream', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode: 'disconnect' });
    const translator = chatOf(openaiAdapter).stream();
    const response = await send(chatOf(openaiAdapter).request(ask('cut'), target(), { stream: true }));
    const events = response.body
      ?.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream());
    const read = async () => {
      for await (const event of events ?? []) translator.onEvent({ data: event.data });
    };
    await expect(read()).rejects.toThrow();
    expect(translator.finish().usage).toBeUndefined();
  });

  it('waits when told to answer slowly, and can be aborted while stalled', async () => {
    upstream.script.next({ kind: 'slow', delayMs: 150 });
    const started = performance.now();
    await complete(openaiAdapter, ask('slow'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    upstream.script.next({ kind: 'stall-mid-stream', afterEvents: 1 });
    const controller = new AbortController();
    const response = await send(
      chatOf(openaiAdapter).request(ask('stall'), target(), { stream: true }),
      controller.signal,
    );
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await expect(reader?.read()).rejects.toThrow();
  });

  it('embeds with floats requested, and decodes the base64 answer identically', async () => {
    const embeddings = openaiAdapter.embeddings;
    if (embeddings === undefined) throw new Error('no embeddings');
    const request = {
      model: 'openai/text-embedding-3-small',
      input: ['alpha', 'beta'],
      dimensions: 8,
      encoding_format: 'base64' as const,
    };
    const built = embeddings.request(request, target('text-embedding-3-small'));
    const response = await send(built);
    expect(lastBody()).toMatchObject({ encoding_format: 'float', dimensions: 8 });
    const result = embeddings.response(await response.json(), request);
    expect(result).toEqual({
      vectors: [fakeVector('alpha', 8), fakeVector('beta', 8)],
      usage: { inputTokens: 3 },
    });
    const base64 = await send({
      ...built,
      body: JSON.stringify({ ...JSON.parse(built.body), encoding_format: 'base64' }),
    });
    expect(embeddings.response(await base64.json(), request).vectors).toEqual(result.vectors);
  });
});

describe('profiles against quirky fakes', () => {
  it('xAI: reasoning_content kept, and total_tokens shows reasoning inside completion', async () => {
    const fake = await startOpenAIUpstream({ reasoningContent: true });
    try {
      const result = await complete(
        xaiAdapter,
        ask('Think about 2+2', { reasoning_effort: 'high' }),
        target('grok-3-mini', DEFAULT_FAKE_KEY, fake.url),
      );
      expect(result.choices[0]?.message.reasoning_content).toBe('Thinking about: Think about 2+2');
      expect(result.usage.reasoningTokens).toBe(16);
      expect(result.usage.outputTokens).toBe(Math.ceil('Echo: Think about 2+2'.length / 4) + 16);
      const { chunks } = await stream(
        xaiAdapter,
        ask('Think', { reasoning_effort: 'low' }),
        target('grok-3-mini', DEFAULT_FAKE_KEY, fake.url),
      );
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('')).toBe(
        'Thinking about: Think',
      );
    } finally {
      await fake.close();
    }
  });

  it('Groq: usage read from x_groq on the last chunk', async () => {
    const fake = await startOpenAIUpstream({ usage: 'x_groq' });
    try {
      const { usage } = await stream(
        groqAdapter,
        ask('Hello Groq'),
        target('llama-3.1-8b-instant', DEFAULT_FAKE_KEY, fake.url),
      );
      expect(usage).toEqual({ inputTokens: 5, cachedInputTokens: 0, outputTokens: 4, reasoningTokens: 0 });
    } finally {
      await fake.close();
    }
  });

  it('Mistral: only documented fields are sent, usage comes on the last chunk; extra fields get its 422', async () => {
    const fake = await startOpenAIUpstream({
      usage: 'last-chunk',
      forbiddenFields: ['stream_options', 'max_completion_tokens', 'seed', 'user'],
    });
    try {
      const to = target('mistral-small-latest', DEFAULT_FAKE_KEY, fake.url);
      const request = ask('Bonjour', { seed: 1, max_completion_tokens: 30, user: 'u-1' });
      const { chunks, usage } = await stream(mistralAdapter, request, to);
      expect(text(chunks)).toBe('Echo: Bonjour');
      expect(usage).toEqual({ inputTokens: 4, cachedInputTokens: 0, outputTokens: 4, reasoningTokens: 0 });
      const generic = await send(chatOf(openAICompatibleAdapter).request(request, to, { stream: true }));
      expect(generic.status).toBe(422);
      expect(openAICompatibleAdapter.errorMessage(422, await generic.text())).toBe(
        'body.stream_options: Extra inputs are not permitted; body.max_completion_tokens: Extra inputs are not permitted; body.seed: Extra inputs are not permitted; body.user: Extra inputs are not permitted',
      );
    } finally {
      await fake.close();
    }
  });
});
