/**
 * Chat through the gateway to the fake OpenAI-compatible upstreams (OpenAI, and xAI for
 * `reasoning_content`), with the official `openai` SDK as the client.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { FAKE_CITATION_URL, FAKE_REASONING_TOKENS } from '../fakes/openai-fake-answers.ts';
import {
  collectChatStream,
  lastBody,
  rawPost,
  serviceOf,
  sseDataLines,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const { g, funded, client } = useGatewayWithFakes();

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
  },
};

describe('OpenAI upstream: plain chat', () => {
  it('answers non-streamed with usage and the cost record, calling the first route', async () => {
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('openai/gpt-4o');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'Echo: Hello there' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBe(Math.ceil('Echo: Hello there'.length / 4));
    const service = serviceOf(completion);
    expect(service).toMatchObject({ model: 'openai/gpt-4o', currency: 'IRT' });
    expect(service.cost).toBeGreaterThan(0);
    const sent = lastBody(g.openai);
    expect(sent.model).toBe('gpt-4o');
    expect(g.openai.requests.at(-1)?.headers.authorization).toBe('Bearer sk-test-fake-key');
  });

  it('resolves an alias to the catalogue model', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-latest',
      messages: [{ role: 'user', content: 'alias' }],
    });
    expect(completion.model).toBe('openai/gpt-4o');
    expect(lastBody(g.openai).model).toBe('gpt-4o');
  });

  it('streams chunks, then the usage chunk with `service`, then ends', async () => {
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Stream these words please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, chunks } = await collectChatStream(stream);
    expect(text).toBe('Echo: Stream these words please');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'openai/gpt-4o')).toBe(
      true,
    );
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBe(Math.ceil(text.length / 4));
    expect(serviceOf(last).cost).toBeGreaterThan(0);
    expect(lastBody(g.openai)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams without a usage chunk when the client did not ask, but still bills it', async () => {
    const before = await g.balance(funded.accountId);
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'no usage please' }],
      stream: true,
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
    // The gateway always asks the upstream for usage, to bill.
    expect(lastBody(g.openai)).toMatchObject({ stream_options: { include_usage: true } });
    expect(await g.balance(funded.accountId)).toBeLessThan(before);
  });
});

describe('OpenAI upstream: the stream on the wire', () => {
  it('is text/event-stream of `data:` chunk lines, usage last, then [DONE], with the spec headers', async () => {
    const response = await rawPost(
      g.gateway.origin,
      '/v1/chat/completions',
      funded.key,
      JSON.stringify({
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: 'wire check' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    const raw = String(response.json.raw);
    const events = raw.split('\n\n').filter((event) => event !== '');
    expect(events.every((event) => event.startsWith('data: ') && !event.slice(6).includes('\n'))).toBe(true);
    const lines = sseDataLines(raw);
    expect(lines.at(-1)).toBe('[DONE]');
    const usageChunk = lines.at(-2) as Record<string, unknown>;
    expect(usageChunk).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { total_tokens: expect.any(Number) },
    });
    expect(serviceOf(usageChunk)).toMatchObject({ model: 'openai/gpt-4o', currency: 'IRT' });
    expect(lines.filter((line) => line === '[DONE]')).toHaveLength(1);
  });
});

describe('OpenAI upstream: tools, json_schema, reasoning, images, citations', () => {
  it('round-trips a tool call: assistant tool_calls, then the tool result', async () => {
    const first = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Please call get_weather for Paris' }],
      tools: [weatherTool],
    });
    const message = first.choices[0]?.message;
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const call = message?.tool_calls?.[0];
    expect(call).toMatchObject({ id: 'call_fake_0', type: 'function', function: { name: 'get_weather' } });
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ input: 'Please call get_weather for Paris' });

    const second = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [
        { role: 'user', content: 'Please call get_weather for Paris' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' },
      ],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.message.content).toBe('Tool result received: sunny, 21 C');
    const sent = lastBody(g.openai).messages as Array<Record<string, unknown>>;
    expect(sent.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_fake_0' }] });
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_fake_0', content: 'sunny, 21 C' });
  });

  it('streams tool-call argument deltas that assemble to the call', async () => {
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'get_weather in Rome' }],
      tools: [weatherTool],
      stream: true,
    });
    let args = '';
    let name = '';
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(call.index).toBe(0);
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ input: 'get_weather in Rome' });
  });

  it('forwards a json_schema response format and returns JSON content', async () => {
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'json please' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'echo',
          strict: true,
          schema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
        },
      },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ echo: 'Echo: json please' });
    expect(lastBody(g.openai).response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'echo' },
    });
  });

  it('takes null for the fields the SDK types as nullable, as not given (none reaches the upstream)', async () => {
    const nulls = {
      temperature: null,
      top_p: null,
      frequency_penalty: null,
      presence_penalty: null,
      max_tokens: null,
      max_completion_tokens: null,
      n: null,
      seed: null,
      stop: null,
      stream: null,
      stream_options: null,
      logprobs: null,
      top_logprobs: null,
      logit_bias: null,
      reasoning_effort: null,
    };
    // GPT-5 takes no temperature: a null one is not a temperature, so it is not refused.
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-5',
      messages: [{ role: 'user', content: 'nulls' }],
      ...nulls,
    });
    expect(completion.object).toBe('chat.completion');
    const sent = lastBody(g.openai);
    for (const field of Object.keys(nulls)) expect(sent).not.toHaveProperty(field);
    // Null stays invalid where the convention does not allow it.
    const refused = await rawPost(
      g.gateway.origin,
      '/v1/chat/completions',
      funded.key,
      JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }], tools: null }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'invalid_request_error' } });
  });

  it('reports OpenAI reasoning tokens in usage (billed as output)', async () => {
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-5',
      messages: [{ role: 'user', content: 'think' }],
      reasoning_effort: 'low',
    });
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(FAKE_REASONING_TOKENS);
    expect(lastBody(g.openai).reasoning_effort).toBe('low');
  });

  it('returns reasoning_content from an upstream that sends it (xAI), streamed and not', async () => {
    const completion = await client.chat.completions.create({
      model: 'xai/grok-3-mini',
      messages: [{ role: 'user', content: 'why is the sky blue' }],
      reasoning_effort: 'low',
    });
    const message = completion.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toBe('Thinking about: why is the sky blue');
    expect(message.content).toBe('Echo: why is the sky blue');
    expect(g.xai.requests.at(-1)?.headers.authorization).toBe('Bearer test-xai-key');

    const stream = await client.chat.completions.create({
      model: 'xai/grok-3-mini',
      messages: [{ role: 'user', content: 'why is the sky blue' }],
      reasoning_effort: 'low',
      stream: true,
    });
    let reasoning = '';
    for await (const chunk of stream) {
      reasoning +=
        (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    }
    expect(reasoning).toBe('Thinking about: why is the sky blue');
  });

  it('forwards images given as https and data URLs', async () => {
    const dataUrl = `data:image/png;base64,${Buffer.from('fake png bytes').toString('base64')}`;
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: dataUrl } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Echo: What is in these?');
    const sent = lastBody(g.openai).messages as Array<{ content: unknown }>;
    expect(sent.at(-1)?.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
      { type: 'image_url', image_url: { url: dataUrl } },
    ]);
  });

  it('returns citations for web_search on a model with that capability', async () => {
    const completion = await client.chat.completions.create({
      model: 'openai/gpt-4o-search-preview',
      messages: [{ role: 'user', content: 'news today' }],
      web_search: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    const citations = (completion as unknown as { citations?: unknown[] }).citations;
    expect(citations).toEqual([{ title: 'Fake source', url: FAKE_CITATION_URL }]);
    expect(lastBody(g.openai).web_search_options).toBeDefined();
    expect(lastBody(g.openai).web_search).toBeUndefined();
  });

  it('streams citations for web_search', async () => {
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o-search-preview',
      messages: [{ role: 'user', content: 'news today' }],
      web_search: true,
      stream: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming);
    const citations: unknown[] = [];
    for await (const chunk of stream)
      citations.push(...((chunk as { citations?: unknown[] }).citations ?? []));
    expect(citations).toContainEqual({ title: 'Fake source', url: FAKE_CITATION_URL });
  });

  it('refuses web_search on a model without it with a clear 400, without calling the upstream', async () => {
    const before = g.openai.requests.length;
    const error = await client.chat.completions
      .create({
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: 'news today' }],
        web_search: true,
      } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 400, error: { type: 'invalid_request_error' } });
    expect((error as Error).message).toContain('web_search');
    expect(g.openai.requests.length).toBe(before);
  });
});
