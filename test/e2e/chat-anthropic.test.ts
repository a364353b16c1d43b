/**
 * Chat through the gateway to the fake Anthropic Messages API, with the official `openai` SDK as
 * the client: the gateway translates both ways and the client never sees Anthropic's format.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { FAKE_SEARCH_RESULTS } from '../fakes/anthropic-upstream-answer.ts';
import {
  collectChatStream,
  lastBody,
  serviceOf,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const MODEL = 'anthropic/claude-sonnet-4-5';
const { g, client } = useGatewayWithFakes({ anthropic: { cacheReadInputTokens: 3 } });

const lookupTool = {
  type: 'function' as const,
  function: {
    name: 'lookup_city',
    description: 'Facts about a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

type Block = Record<string, unknown>;
const lastUserBlocks = () => {
  const messages = lastBody(g.anthropic).messages as Array<{ role: string; content: Block[] | string }>;
  return messages.at(-1)?.content as Block[];
};

describe('Anthropic upstream: plain chat', () => {
  it('answers non-streamed in the chat-completion shape, with cached tokens and the cost', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello Claude' },
      ],
      max_tokens: 100,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'Echo: Hello Claude',
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(3);
    expect(completion.usage?.completion_tokens).toBe(3);
    expect(serviceOf(completion).cost).toBeGreaterThan(0);
    const sent = lastBody(g.anthropic);
    expect(sent).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 100 });
    expect(g.anthropic.requests.at(-1)?.headers['x-api-key']).toBe('test-anthropic-key');
    expect(g.anthropic.requests.at(-1)?.headers['anthropic-version']).toBeDefined();
  });

  it('streams the event sequence as chunks, then usage with `service`', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Stream from Claude now' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, chunks } = await collectChatStream(stream);
    expect(text).toBe('Echo: Stream from Claude now');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ completion_tokens: 5, prompt_tokens_details: { cached_tokens: 3 } });
    expect(serviceOf(last).cost).toBeGreaterThan(0);
    expect(lastBody(g.anthropic).stream).toBe(true);
  });
});

describe('Anthropic upstream: tools, json_schema, reasoning, images, citations', () => {
  it('round-trips a tool call through tool_use and tool_result blocks', async () => {
    const question = 'Use lookup_city for Oslo';
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: question }],
      tools: [lookupTool],
    });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('lookup_city');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: question });

    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'Oslo is the capital of Norway' },
      ],
      tools: [lookupTool],
    });
    expect(second.choices[0]?.message.content).toBe('Tool result: Oslo is the capital of Norway');
    expect(lastUserBlocks()).toMatchObject([{ type: 'tool_result', tool_use_id: call.id }]);
  });

  it('streams a tool call with argument deltas on one stable index', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'lookup_city Lima' }],
      tools: [lookupTool],
      stream: true,
    });
    let args = '';
    const indexes = new Set<number>();
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        indexes.add(call.index);
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect([...indexes]).toEqual([0]);
    expect(JSON.parse(args)).toEqual({ city: 'lookup_city Lima' });
    expect(finish).toBe('tool_calls');
  });

  it('answers a json_schema response format with JSON matching the schema', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'three little words' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'summary',
          strict: true,
          schema: {
            type: 'object',
            properties: { text: { type: 'string' }, words: { type: 'integer' } },
            required: ['text', 'words'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({
      text: 'three little words',
      words: 3,
    });
  });

  it('maps reasoning_effort to extended thinking and returns reasoning_content', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'think hard' }],
      reasoning_effort: 'low',
    });
    const message = completion.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toBe('Thinking about: think hard');
    expect(message.content).toBe('Echo: think hard');
    expect(lastBody(g.anthropic).thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });

    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'think hard' }],
      reasoning_effort: 'low',
      stream: true,
    });
    let reasoning = '';
    for await (const chunk of stream) {
      reasoning +=
        (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    }
    expect(reasoning).toBe('Thinking about: think hard');
  });

  it('sends https images as url sources and data URLs as base64 sources', async () => {
    const data = Buffer.from('fake png').toString('base64');
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Echo: Compare [2 image(s), 0 document(s)]');
    expect(lastUserBlocks()).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
    ]);
  });

  it('enables the web search tool for web_search and returns its sources as citations', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'latest news' }],
      web_search: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    const citations = (completion as unknown as { citations?: Array<{ url: string }> }).citations ?? [];
    expect(citations.map((c) => c.url)).toContain(FAKE_SEARCH_RESULTS[0]?.url);
    const tools = lastBody(g.anthropic).tools as Array<{ type?: string }>;
    expect(tools.some((t) => t.type?.startsWith('web_search_'))).toBe(true);
  });

  it('streams the web search citations', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'latest news' }],
      web_search: true,
      stream: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming);
    const urls: string[] = [];
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      for (const c of (chunk as { citations?: Array<{ url: string }> }).citations ?? []) urls.push(c.url);
    }
    expect(text).toBe('Echo: latest news');
    expect(urls).toContain(FAKE_SEARCH_RESULTS[0]?.url);
  });
});
