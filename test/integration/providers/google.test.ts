import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChatChunk,
  type ChatRequest,
  type NormalizedUsage,
  type UpstreamRequest,
  UpstreamStreamError,
  type UpstreamTarget,
} from '../../../shared/src/providers/chat-types.ts';
import { googleEmbeddings } from '../../../shared/src/providers/google/embeddings.ts';
import {
  googleAdapter,
  googleChat,
  isGoogleKeyRejection,
} from '../../../shared/src/providers/google/index.ts';
import { FAKE_SIGNATURE, type GeminiUpstream, startGeminiUpstream } from '../../fakes/gemini-upstream.ts';

let upstream: GeminiUpstream;
beforeAll(async () => {
  upstream = await startGeminiUpstream({ apiKey: 'gk-test' });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

function target(nativeModel = 'gemini-2.5-flash', apiKey = 'gk-test'): UpstreamTarget {
  return { baseUrl: upstream.url, apiKey, nativeModel };
}

function send(request: UpstreamRequest): Promise<Response> {
  return fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
}

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'google/gemini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content },
  ],
  ...extra,
});

async function chat(request: ChatRequest, model?: string) {
  const response = await send(googleChat.request(request, target(model), { stream: false }));
  expect(response.status).toBe(200);
  return googleChat.response(await response.json());
}

async function stream(
  request: ChatRequest,
  model?: string,
  chunks: ChatChunk[] = [],
): Promise<{ chunks: ChatChunk[]; usage?: NormalizedUsage }> {
  const response = await send(googleChat.request(request, target(model), { stream: true }));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const translator = googleChat.stream();
  const events = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const event of events)
    chunks.push(...translator.onEvent({ event: event.event, data: event.data }));
  return { chunks, usage: translator.finish().usage };
}

describe('google adapter against the fake Gemini API', () => {
  it('answers a non-streamed chat with usage derived from the input', async () => {
    const result = await chat(ask('Hello there'));
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Echo: Hello there' },
        finish_reason: 'stop',
        logprobs: null,
      },
    ]);
    // prompt: "Be brief." (9) + "Hello there" (11) = 20 chars = 5 tokens, 3 of them the cached system prefix.
    expect(result.usage).toEqual({
      inputTokens: 5,
      cachedInputTokens: 3,
      outputTokens: 5,
      reasoningTokens: 0,
    });
    const sent = upstream.requests.at(-1);
    expect(sent?.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe('gk-test');
  });

  it('streams the same answer as chunks, role first, with the final usage', async () => {
    const { chunks, usage } = await stream(ask('Hello there'));
    const deltas = chunks.flatMap((chunk) => chunk.choices);
    expect(deltas[0]?.delta.role).toBe('assistant');
    expect(deltas.map((d) => d.delta.content ?? '').join('')).toBe('Echo: Hello there');
    expect(deltas.at(-1)?.finish_reason).toBe('stop');
    expect(usage).toEqual({ inputTokens: 5, cachedInputTokens: 3, outputTokens: 5, reasoningTokens: 0 });
  });

  it('returns thoughts as reasoning_content and bills them as output', async () => {
    const result = await chat(ask('Why?', { reasoning_effort: 'low' }));
    expect(result.choices[0]?.message.reasoning_content).toBe('Thinking about: Why?');
    expect(result.usage.reasoningTokens).toBe(5);
    expect(result.usage.outputTokens).toBe(5 + 3);
    const { chunks } = await stream(ask('Why?', { reasoning_effort: 'high' }));
    const reasoning = chunks.flatMap((c) => c.choices.map((d) => d.delta.reasoning_content ?? '')).join('');
    expect(reasoning).toBe('Thinking about: Why?');
  });

  it('does a tool round trip, carrying the Gemini 3 thought signature in the tool call id', async () => {
    const tools: ChatRequest['tools'] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
    ];
    const first = await chat(ask('Please get_weather for Paris', { tools }), 'gemini-3-flash-preview');
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.id).toBe(`call_0_0__thought__${FAKE_SIGNATURE}`);
    expect(JSON.parse(call?.function.arguments ?? '')).toEqual({ query: 'Please get_weather for Paris' });

    const followUp = ask('Please get_weather for Paris', { tools });
    followUp.messages.push(
      { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls },
      { role: 'tool', tool_call_id: call?.id, content: '{"temp":21}' },
    );
    const second = await chat(followUp, 'gemini-3-flash-preview');
    expect(second.choices[0]?.message.content).toBe('Tool get_weather returned {"temp":21}');
  });

  it('streams a function call as one tool_calls delta and finishes with tool_calls', async () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'lookup' } }];
    const { chunks } = await stream(ask('anything', { tools, tool_choice: 'required' }));
    const calls = chunks.flatMap((c) => c.choices.flatMap((d) => d.delta.tool_calls ?? []));
    expect(calls).toEqual([
      {
        index: 0,
        id: 'call_0_0',
        type: 'function',
        function: { name: 'lookup', arguments: '{"query":"anything"}' },
      },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('returns Google Search sources as deduplicated citations', async () => {
    const result = await chat(ask('Who won?', { web_search: true }));
    expect(result.citations?.map((c) => c.title)).toEqual(['example.com', 'example.org']);
    const { chunks } = await stream(ask('Who won?', { web_search: true }));
    expect(chunks.at(-1)?.citations).toHaveLength(2);
  });

  it('maps JSON output, a length stop and a blocked prompt', async () => {
    const json = await chat(ask('x', { response_format: { type: 'json_object' } }));
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toEqual({ echo: 'Echo: x' });
    const cut = await chat(ask('a long question', { max_tokens: 2 }));
    expect(cut.choices[0]).toMatchObject({ message: { content: 'Echo: a ' }, finish_reason: 'length' });
    const blocked = await chat(ask('[blocked] request'));
    expect(blocked.choices[0]).toMatchObject({ message: { content: null }, finish_reason: 'content_filter' });
  });

  it('embeds every input through batchEmbedContents', async () => {
    const request = { model: 'google/gemini-embedding-001', input: ['one', 'three'], dimensions: 4 };
    const response = await send(googleEmbeddings.request(request, target('gemini-embedding-001')));
    expect(response.status).toBe(200);
    const result = googleEmbeddings.response(await response.json(), request);
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors.every((v) => v.length === 4)).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 1 + 2 });
  });
});

describe('google adapter: upstream errors', () => {
  async function failure(
    request: UpstreamRequest,
  ): Promise<{ status: number; message: string; body: string }> {
    const response = await send(request);
    const body = await response.text();
    return { status: response.status, message: googleAdapter.errorMessage(response.status, body), body };
  }

  it('answers scripted 429 with Retry-After and 500 with a scrubbed message', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const response = await send(googleChat.request(ask('x'), target(), { stream: false }));
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(googleAdapter.errorMessage(429, await response.text())).toMatch(
      /^Gemini RESOURCE_EXHAUSTED: You exceeded/,
    );
    upstream.script.next({ kind: 'status', status: 500 });
    const internal = await failure(googleChat.request(ask('x'), target(), { stream: false }));
    expect(internal.status).toBe(500);
    expect(internal.message).toBe(
      'Gemini INTERNAL: An internal error has occurred. Please retry or report in [url]',
    );
  });

  it('refuses a wrong key with 400 API_KEY_INVALID and a missing key with 403, as Google does', async () => {
    const wrong = await failure(
      googleChat.request(ask('x'), target('gemini-2.5-flash', 'AIzaWrongKey1234567890'), { stream: false }),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.message).toBe('Gemini INVALID_ARGUMENT: API key not valid. Please pass a valid API key.');
    expect(isGoogleKeyRejection(wrong.status, wrong.body)).toBe(true);
    const missing = await failure(
      googleChat.request(ask('x'), target('gemini-2.5-flash', ''), { stream: false }),
    );
    expect(missing.status).toBe(403);
    expect(missing.message).toMatch(/^Gemini PERMISSION_DENIED/);
  });

  it('answers 404 for an unknown model and 400 for a malformed request', async () => {
    const notFound = await failure(googleChat.request(ask('x'), target('missing-model'), { stream: false }));
    expect(notFound.status).toBe(404);
    expect(notFound.message).toMatch(/^Gemini NOT_FOUND: models\/missing-model is not found/);
    const malformed = await failure({
      url: `${upstream.url}/v1beta/models/gemini-2.5-flash:generateContent`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gk-test' },
      body: JSON.stringify({ contents: [] }),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.message).toBe(
      'Gemini INVALID_ARGUMENT: * GenerateContentRequest.contents: contents is not specified',
    );
  });

  it('rejects a Gemini 3 function call history without a signature (the adapter adds a placeholder)', async () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'x' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
      ],
    };
    const rejected = await failure({
      url: `${upstream.url}/v1beta/models/gemini-3-pro-preview:generateContent`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gk-test' },
      body: JSON.stringify(body),
    });
    expect(rejected.status).toBe(400);
    const foreign = ask('x');
    foreign.messages.push(
      {
        role: 'assistant',
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
    );
    expect((await chat(foreign, 'gemini-3-pro-preview')).choices[0]?.message.content).toBe(
      'Tool f returned {"content":"ok"}',
    );
  });

  it('throws UpstreamStreamError with the provider status when the stream fails mid-way', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 2, mode: 'error-event' });
    let thrown: unknown;
    const received: ChatChunk[] = [];
    try {
      await stream(ask('Hello there'), undefined, received);
    } catch (err) {
      thrown = err;
    }
    expect(received.flatMap((c) => c.choices.map((d) => d.delta.content)).join('')).toBe('Echo: Hello there');
    expect(thrown).toBeInstanceOf(UpstreamStreamError);
    expect((thrown as UpstreamStreamError).status).toBe(503);
    expect((thrown as UpstreamStreamError).message).toBe(
      'Gemini UNAVAILABLE: The model is overloaded. Please try again later.',
    );
  });

  it('answers slowly when told to', async () => {
    upstream.script.next({ kind: 'slow', delayMs: 150 });
    const started = performance.now();
    await chat(ask('x'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('stalls a stream after the scripted events until the client aborts', async () => {
    upstream.script.next({ kind: 'stall-mid-stream', afterEvents: 1 });
    const abort = new AbortController();
    const request = googleChat.request(ask('Hello there'), target(), { stream: true });
    const response = await fetch(request.url, { ...request, method: 'POST', signal: abort.signal });
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    const first = await reader.read();
    expect(first.value).toContain('data: ');
    const next = reader.read();
    const timeout = new Promise((resolve) => setTimeout(() => resolve('stalled'), 100));
    expect(await Promise.race([next, timeout])).toBe('stalled');
    abort.abort();
    await expect(next).rejects.toThrow();
  });

  it('surfaces a cut connection as a stream read failure', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 1, mode: 'disconnect' });
    await expect(stream(ask('Hello there'))).rejects.toThrow();
  });
});
