import { describe, expect, it } from 'vitest';
import {
  type ChatChunk,
  type SseEvent,
  UpstreamProtocolError,
  UpstreamStreamError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { deepseekProfile } from '../../../../../shared/src/providers/deepseek/index.ts';
import { groqAdapter } from '../../../../../shared/src/providers/groq/index.ts';
import { mistralAdapter } from '../../../../../shared/src/providers/mistral/index.ts';
import { openaiAdapter, openaiProfile } from '../../../../../shared/src/providers/openai/index.ts';
import { createChatStreamTranslator } from '../../../../../shared/src/providers/openai-compatible/chat-stream.ts';
import type { OpenAICompatibleProfile } from '../../../../../shared/src/providers/openai-compatible/profile.ts';
import { xaiAdapter } from '../../../../../shared/src/providers/xai/index.ts';

const head = {
  id: 'chatcmpl-123',
  object: 'chat.completion.chunk',
  created: 1694268190,
  model: 'gpt-4o-mini',
};
const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...head,
  choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
  ...extra,
});
const data = (json: unknown): SseEvent => ({ data: JSON.stringify(json) });

function run(profile: OpenAICompatibleProfile, events: SseEvent[]) {
  const translator = createChatStreamTranslator(profile);
  const chunks: ChatChunk[] = events.flatMap((event) => translator.onEvent(event));
  return { chunks, usage: translator.finish().usage };
}

/** OpenAI function-calling guide: streamed tool calls, arguments split across deltas, two calls. */
const toolCallStream = [
  chunk({ delta: { role: 'assistant', content: null } }, { usage: null }),
  chunk(
    {
      delta: {
        tool_calls: [
          {
            index: 0,
            id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
    },
    { usage: null },
  ),
  chunk(
    {
      delta: {
        tool_calls: [{ index: 0, id: null, type: null, function: { name: null, arguments: '{"loc' } }],
      },
    },
    { usage: null },
  ),
  chunk(
    { delta: { tool_calls: [{ index: 0, function: { arguments: 'ation":"Paris"}' } }] } },
    { usage: null },
  ),
  chunk(
    {
      delta: {
        tool_calls: [
          { index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
    },
    { usage: null },
  ),
  chunk({ delta: {}, finish_reason: 'tool_calls' }, { usage: null }),
  {
    ...head,
    choices: [],
    usage: {
      prompt_tokens: 50,
      completion_tokens: 20,
      total_tokens: 70,
      prompt_tokens_details: { cached_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  },
];

describe('stream translation', () => {
  it('maps OpenAI’s documented text stream and ignores [DONE]', () => {
    const { chunks, usage } = run(openaiProfile, [
      data(chunk({ delta: { role: 'assistant', content: '' } })),
      data(chunk({ delta: { content: 'Hello' } })),
      data(chunk({ delta: {}, finish_reason: 'stop' })),
      { data: '[DONE]' },
    ]);
    expect(chunks).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]);
    expect(usage).toBeUndefined();
  });

  it('keeps tool-call delta indexes, never forwards the usage-only chunk, returns usage from finish()', () => {
    const translator = openaiAdapter.chat?.stream();
    const chunks = toolCallStream.flatMap((json) => translator?.onEvent(data(json)) ?? []);
    expect(chunks).toHaveLength(6);
    expect(chunks.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.index)).toEqual([
      undefined,
      0,
      0,
      0,
      1,
      undefined,
    ]);
    expect(chunks[1]?.choices[0]?.delta.tool_calls).toEqual([
      {
        index: 0,
        id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ]);
    expect(chunks[2]?.choices[0]?.delta.tool_calls).toEqual([{ index: 0, function: { arguments: '{"loc' } }]);
    expect(chunks[5]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(translator?.finish().usage).toEqual({
      inputTokens: 50,
      cachedInputTokens: 10,
      outputTokens: 20,
      reasoningTokens: 0,
    });
  });

  it('reads Mistral usage from the finish chunk, forwards its choices, and splits thinking chunks', () => {
    const translator = mistralAdapter.chat?.stream();
    const thinking = chunk({
      delta: { content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Hmm.' }] }] },
    });
    const text = chunk({ delta: { content: [{ type: 'text', text: 'Three.' }] } });
    const last = chunk(
      { delta: { content: '' }, finish_reason: 'stop' },
      { usage: { prompt_tokens: 7, total_tokens: 12, completion_tokens: 5 } },
    );
    const chunks = [thinking, text, last].flatMap((json) => translator?.onEvent(data(json)) ?? []);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { reasoning_content: 'Hmm.' },
      { content: 'Three.' },
      { content: '' },
    ]);
    expect(translator?.finish().usage).toEqual({
      inputTokens: 7,
      cachedInputTokens: 0,
      outputTokens: 5,
      reasoningTokens: 0,
    });
  });

  it('reads Groq x_groq.usage and Groq delta.reasoning', () => {
    const translator = groqAdapter.chat?.stream();
    const chunks = [
      chunk({ delta: { reasoning: 'Think.' } }),
      chunk(
        { delta: {}, finish_reason: 'stop' },
        { x_groq: { id: 'req_1', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } } },
      ),
    ].flatMap((json) => translator?.onEvent(data(json)) ?? []);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ reasoning_content: 'Think.' });
    expect(translator?.finish().usage).toEqual({
      inputTokens: 3,
      cachedInputTokens: 0,
      outputTokens: 4,
      reasoningTokens: 0,
    });
  });

  it('keeps DeepSeek reasoning_content deltas and cache hits', () => {
    const { chunks, usage } = run(deepseekProfile, [
      data(chunk({ delta: { role: 'assistant', content: null, reasoning_content: 'Step 1' } })),
      data({
        ...head,
        choices: [],
        usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_cache_hit_tokens: 16 },
      }),
    ]);
    expect(chunks).toEqual([
      {
        choices: [
          { index: 0, delta: { role: 'assistant', reasoning_content: 'Step 1' }, finish_reason: null },
        ],
      },
    ]);
    expect(usage).toEqual({ inputTokens: 20, cachedInputTokens: 16, outputTokens: 9, reasoningTokens: 0 });
  });

  it('sends repeated top-level citations once, and annotation deltas as citations', () => {
    const translator = xaiAdapter.chat?.stream();
    const citations = ['https://a.example.com/1'];
    const first = translator?.onEvent(data(chunk({ delta: { content: 'A' } }, { citations })));
    const second = translator?.onEvent(data(chunk({ delta: { content: 'B' } }, { citations })));
    expect(first?.[0]?.citations).toEqual([{ title: null, url: 'https://a.example.com/1' }]);
    expect(second?.[0]?.citations).toBeUndefined();
    const annotation = {
      type: 'url_citation',
      url_citation: { url: 'https://n.example.org', title: 'N', start_index: 0, end_index: 1 },
    };
    const openaiTranslator = openaiAdapter.chat?.stream();
    const annotated = openaiTranslator?.onEvent(data(chunk({ delta: { annotations: [annotation] } })));
    expect(annotated?.[0]?.citations).toEqual([{ title: 'N', url: 'https://n.example.org' }]);
  });
});

describe('stream errors', () => {
  const failure = (event: SseEvent): UpstreamStreamError => {
    try {
      openaiAdapter.chat?.stream().onEvent(event);
    } catch (error) {
      if (error instanceof UpstreamStreamError) return error;
      throw error;
    }
    throw new Error('expected an UpstreamStreamError');
  };

  it('takes the status from a numeric code, else from the error name, else 500', () => {
    expect(failure(data({ error: { message: 'Overloaded', type: 'server_error', code: 503 } })).status).toBe(
      503,
    );
    expect(
      failure(data({ error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } }))
        .status,
    ).toBe(429);
    expect(
      failure(data({ error: { message: 'Oops', type: 'server_error', param: null, code: null } })).status,
    ).toBe(500);
    expect(
      failure(data({ error: { message: 'Bad', type: 'invalid_request_error', code: 'tool_use_failed' } }))
        .status,
    ).toBe(400);
    expect(failure(data({ error: 'something broke' })).status).toBe(500);
    expect(failure({ event: 'error', data: JSON.stringify({ message: 'gone', code: '502' }) }).status).toBe(
      502,
    );
  });

  it('sanitizes the in-stream message', () => {
    const error = failure(
      data({ error: { message: 'Key sk-abc123456 failed at https://internal.example.com/x', code: 500 } }),
    );
    expect(error.message).toBe('Key [redacted] failed at [url]');
  });

  it('treats Mistral finish_reason error as a stream failure and a non-JSON event as a protocol error', () => {
    expect(() =>
      mistralAdapter.chat?.stream().onEvent(data(chunk({ delta: {}, finish_reason: 'error' }))),
    ).toThrow(UpstreamStreamError);
    expect(() => openaiAdapter.chat?.stream().onEvent({ data: 'not json' })).toThrow(UpstreamProtocolError);
    expect(() => openaiAdapter.chat?.stream().onEvent(data({ choices: 'x' }))).toThrow(UpstreamProtocolError);
  });
});
