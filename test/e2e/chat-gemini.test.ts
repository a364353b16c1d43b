/**
 * Chat through the gateway to the fake Gemini API (generateContent / streamGenerateContent), with
 * the official `openai` SDK as the client.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  collectChatStream,
  lastBody,
  serviceOf,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const MODEL = 'google/gemini-2.5-flash';
const { g, client } = useGatewayWithFakes();

const searchTool = {
  type: 'function' as const,
  function: {
    name: 'search_docs',
    description: 'Search the docs',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

type Part = Record<string, unknown>;
const lastPath = () => g.gemini.requests.at(-1)?.url ?? '';
const lastContentParts = () => {
  const contents = lastBody(g.gemini).contents as Array<{ role: string; parts: Part[] }>;
  return contents.at(-1)?.parts ?? [];
};

describe('Gemini upstream: plain chat', () => {
  it('answers non-streamed through generateContent, the key in a header', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello Gemini' }],
    });
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'Echo: Hello Gemini',
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBe(Math.ceil('Echo: Hello Gemini'.length / 4));
    // The identity prompt is the system instruction, reported back as an implicit cache hit.
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
    expect(serviceOf(completion).cost).toBeGreaterThan(0);
    expect(lastPath()).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(g.gemini.requests.at(-1)?.headers['x-goog-api-key']).toBe('test-gemini-key');
  });

  it('streams through streamGenerateContent?alt=sse, then usage with `service`', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Stream from Gemini' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, chunks } = await collectChatStream(stream);
    expect(text).toBe('Echo: Stream from Gemini');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
    const last = chunks.at(-1);
    expect(last?.usage?.completion_tokens).toBe(Math.ceil(text.length / 4));
    expect(serviceOf(last).cost).toBeGreaterThan(0);
    expect(lastPath()).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });
});

describe('Gemini upstream: tools, json_schema, reasoning, images, citations', () => {
  it('round-trips a function call and its functionResponse', async () => {
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'search_docs for streaming' }],
      tools: [searchTool],
    });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('search_docs');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'search_docs for streaming' });
    expect(call.id).toBeTruthy();

    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'search_docs for streaming' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"hits":2}' },
      ],
      tools: [searchTool],
    });
    expect(second.choices[0]?.message.content).toMatch(/^Tool search_docs returned /);
    expect(lastContentParts()[0]).toMatchObject({ functionResponse: { name: 'search_docs' } });
  });

  it('sends a json_schema as responseSchema and returns JSON', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'as json' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'echo', schema: { type: 'object', properties: { echo: { type: 'string' } } } },
      },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ echo: 'Echo: as json' });
    const config = lastBody(g.gemini).generationConfig as Record<string, unknown>;
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseSchema ?? config.responseJsonSchema).toBeDefined();
  });

  it('returns thought summaries as reasoning_content, billed as output', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'ponder this' }],
      reasoning_effort: 'medium',
    });
    const message = completion.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toBe('Thinking about: ponder this');
    expect(message.content).toBe('Echo: ponder this');
    const thoughts = Math.ceil('Thinking about: ponder this'.length / 4);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(thoughts);
    expect(completion.usage?.completion_tokens).toBe(Math.ceil('Echo: ponder this'.length / 4) + thoughts);
  });

  it('sends data URLs inline and https images by reference', async () => {
    const data = Buffer.from('fake webp').toString('base64');
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'https://example.com/photo.png' } },
            { type: 'image_url', image_url: { url: `data:image/webp;base64,${data}` } },
          ],
        },
      ],
    });
    expect(lastContentParts()).toEqual([
      { text: 'Describe' },
      { fileData: { fileUri: 'https://example.com/photo.png', mimeType: 'image/png' } },
      { inlineData: { mimeType: 'image/webp', data } },
    ]);
  });

  it('grounds with Google Search for web_search and returns deduplicated citations', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'who won' }],
      web_search: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    const citations = (completion as unknown as { citations?: Array<{ url: string; title: string | null }> })
      .citations;
    expect(citations?.map((c) => c.url)).toEqual([
      'https://vertexaisearch.cloud.google.com/grounding-api-redirect/a',
      'https://vertexaisearch.cloud.google.com/grounding-api-redirect/b',
    ]);
    expect(lastBody(g.gemini).tools).toContainEqual({ google_search: {} });
  });

  it('streams the grounding citations and a function call', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'who won' }],
      web_search: true,
      stream: true,
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming);
    const urls = new Set<string>();
    for await (const chunk of stream) {
      for (const c of (chunk as { citations?: Array<{ url: string }> }).citations ?? []) urls.add(c.url);
    }
    expect(urls.size).toBe(2);

    const calls = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'search_docs now' }],
      tools: [searchTool],
      stream: true,
    });
    let args = '';
    let finish: string | null | undefined;
    for await (const chunk of calls) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(JSON.parse(args)).toEqual({ query: 'search_docs now' });
    expect(finish).toBe('tool_calls');
  });

  it('refuses web_search on a Gemini model without the capability', async () => {
    const error = await client.chat.completions
      .create({
        model: 'google/gemini-2.0-flash-lite',
        messages: [{ role: 'user', content: 'who won' }],
        web_search: true,
      } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 400, error: { type: 'invalid_request_error' } });
  });
});

describe('a prompt over Gemini 2.5 Pro’s 200k-token threshold', () => {
  it('is charged at the long-context rates, output included; one under it at the model’s own', async () => {
    // The fake counts a token per 4 characters, and the identity system prompt as a cache hit.
    const ask = async (characters: number) => {
      const own = await g.fundedClient({ topUp: 10_000_000 });
      const before = await g.balanceMicros(own.accountId);
      const completion = await own.client.chat.completions.create({
        model: 'google/gemini-2.5-pro',
        messages: [{ role: 'user', content: 'a'.repeat(characters) }],
        max_tokens: 50,
      });
      const usage = completion.usage as OpenAI.CompletionUsage;
      const charged = before - (await g.balanceMicros(own.accountId));
      expect(BigInt(Math.round(serviceOf(completion).cost * 1e6))).toBe(charged);
      const cached = BigInt(usage.prompt_tokens_details?.cached_tokens ?? 0);
      const prompt = BigInt(usage.prompt_tokens);
      return { prompt, fresh: prompt - cached, cached, output: BigInt(usage.completion_tokens), charged };
    };
    // List prices per 1M tokens at the catalogue's 105,000 IRT a dollar, in µIRT a token:
    // up to 200k $1.25 in / $0.125 cached / $10 out; above, $2.50 / $0.25 / $15.
    const long = await ask(810_000);
    expect(long.prompt).toBeGreaterThan(200_000n);
    expect(long.cached).toBeGreaterThan(0n);
    expect(long.charged).toBe(long.fresh * 262_500n + long.cached * 26_250n + long.output * 1_575_000n);
    const short = await ask(790_000);
    expect(short.prompt).toBeLessThanOrEqual(200_000n);
    expect(short.charged).toBe(short.fresh * 131_250n + short.cached * 13_125n + short.output * 1_050_000n);
  });
});
