import { describe, expect, it } from 'vitest';
import type { ChatRequest, UpstreamTarget } from '../../../../../shared/src/providers/chat-types.ts';
import { deepseekAdapter, deepseekProfile } from '../../../../../shared/src/providers/deepseek/index.ts';
import { groqProfile } from '../../../../../shared/src/providers/groq/index.ts';
import { mistralProfile } from '../../../../../shared/src/providers/mistral/index.ts';
import { openaiAdapter, openaiProfile } from '../../../../../shared/src/providers/openai/index.ts';
import { toChatRequestBody } from '../../../../../shared/src/providers/openai-compatible/chat-request.ts';
import {
  genericCompatibleProfile,
  UnsupportedFeatureError,
} from '../../../../../shared/src/providers/openai-compatible/create-openai-compatible.ts';
import { xaiProfile } from '../../../../../shared/src/providers/xai/index.ts';
import { fullRequest } from './fixtures.ts';

const simple = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'provider/model',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

function rejection(run: () => unknown): UnsupportedFeatureError {
  try {
    run();
  } catch (error) {
    if (error instanceof UnsupportedFeatureError) return error;
    throw error;
  }
  throw new Error('expected an UnsupportedFeatureError');
}

describe('OpenAI request body', () => {
  it('passes every documented field, renames the cap, maps web_search and always asks for stream usage', () => {
    const request = fullRequest();
    const body = toChatRequestBody(request, openaiProfile, 'gpt-5-2025-08-07', true);
    expect(body).toEqual({
      model: 'gpt-5-2025-08-07',
      messages: request.messages,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      stop: ['END'],
      seed: 42,
      n: 1,
      user: 'user-1',
      tools: request.tools,
      tool_choice: 'auto',
      parallel_tool_calls: false,
      response_format: request.response_format,
      reasoning_effort: 'low',
      web_search_options: { search_context_size: 'low' },
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { '50256': -100 },
    });
    // Messages need no rewriting for OpenAI: the same array is forwarded.
    expect(body.messages).toBe(request.messages);
  });

  it('sends neither stream nor stream_options when not streaming, and web_search alone as empty options', () => {
    const body = toChatRequestBody(
      simple({ stream: true, web_search: true }),
      openaiProfile,
      'gpt-4o-search-preview',
      false,
    );
    expect(body).toEqual({
      model: 'gpt-4o-search-preview',
      messages: simple().messages,
      web_search_options: {},
    });
  });

  it('drops web_search false, and keeps max_completion_tokens when both caps agree', () => {
    const body = toChatRequestBody(
      simple({ web_search: false, max_tokens: 5, max_completion_tokens: 5 }),
      openaiProfile,
      'gpt-4o',
      false,
    );
    expect(body).toEqual({ model: 'gpt-4o', messages: simple().messages, max_completion_tokens: 5 });
  });

  it('rejects two different caps, reasoning_effort max, and contradictory web search', () => {
    expect(
      rejection(() =>
        toChatRequestBody(simple({ max_tokens: 5, max_completion_tokens: 6 }), openaiProfile, 'm', false),
      ).param,
    ).toBe('max_tokens');
    const effort = rejection(() =>
      toChatRequestBody(simple({ reasoning_effort: 'max' }), openaiProfile, 'm', false),
    );
    expect(effort.param).toBe('reasoning_effort');
    expect(effort.message).toContain('`max`');
    expect(
      rejection(() =>
        toChatRequestBody(simple({ web_search: false, web_search_options: {} }), openaiProfile, 'm', false),
      ).param,
    ).toBe('web_search');
  });

  it('builds the upstream request: URL under the versioned base URL, Bearer auth, JSON body', () => {
    const target: UpstreamTarget = {
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
      nativeModel: 'gpt-4o',
    };
    const built = openaiAdapter.chat?.request(simple(), target, { stream: true });
    expect(built?.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(built?.headers).toEqual({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(JSON.parse(built?.body ?? '')).toMatchObject({ model: 'gpt-4o', stream: true });
    const slash = openaiAdapter.chat?.request(
      simple(),
      { ...target, baseUrl: 'https://api.openai.com/v1/' },
      { stream: false },
    );
    expect(slash?.url).toBe('https://api.openai.com/v1/chat/completions');
  });
});

describe('DeepSeek request body', () => {
  it('sends developer as system, the cap as max_tokens, drops n: 1 and asks for stream usage', () => {
    const request = simple({
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 50,
      n: 1,
    });
    const body = toChatRequestBody(request, deepseekProfile, 'deepseek-chat', true);
    expect(body).toEqual({
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 50,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request.messages[0]?.role).toBe('developer');
  });

  it('rejects what DeepSeek does not document', () => {
    const schema = { type: 'json_schema' as const, json_schema: { name: 'x' } };
    expect(
      rejection(() => toChatRequestBody(simple({ response_format: schema }), deepseekProfile, 'm', false))
        .param,
    ).toBe('response_format');
    expect(
      rejection(() => toChatRequestBody(simple({ reasoning_effort: 'high' }), deepseekProfile, 'm', false))
        .message,
    ).toBe('DeepSeek does not support reasoning_effort; `high` cannot be served.');
    expect(rejection(() => toChatRequestBody(simple({ n: 2 }), deepseekProfile, 'm', false)).param).toBe('n');
    expect(
      rejection(() => toChatRequestBody(simple({ logit_bias: { '1': 1 } }), deepseekProfile, 'm', false))
        .param,
    ).toBe('logit_bias');
    expect(
      rejection(() => toChatRequestBody(simple({ web_search: true }), deepseekProfile, 'm', false)).param,
    ).toBe('web_search');
  });

  it('joins text parts into a string and rejects other parts (DeepSeek takes string content only)', () => {
    const request = simple({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'First.' },
            { type: 'text', text: 'Second.' },
          ],
        },
        { role: 'assistant', content: 'Plain.' },
      ],
    });
    const body = toChatRequestBody(request, deepseekProfile, 'deepseek-chat', false);
    expect(body.messages).toEqual([
      { role: 'user', content: 'First.\nSecond.' },
      { role: 'assistant', content: 'Plain.' },
    ]);
    const image = simple({
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: 'https://x.example.com/a.png' }] },
      ],
    });
    expect(rejection(() => toChatRequestBody(image, deepseekProfile, 'm', false)).message).toBe(
      'DeepSeek does not accept `image_url` content parts (messages[0]).',
    );
  });

  it('accepts json_object through the adapter', () => {
    const target = { baseUrl: 'https://api.deepseek.com', apiKey: 'k', nativeModel: 'deepseek-chat' };
    const built = deepseekAdapter.chat?.request(
      simple({ response_format: { type: 'json_object' } }),
      target,
      { stream: false },
    );
    expect(built?.url).toBe('https://api.deepseek.com/chat/completions');
    expect(JSON.parse(built?.body ?? '')).toEqual({
      model: 'deepseek-chat',
      messages: simple().messages,
      response_format: { type: 'json_object' },
    });
  });
});

describe('Mistral request body', () => {
  it('renames seed, uses max_tokens, sends no stream_options and drops user', () => {
    const body = toChatRequestBody(
      simple({ seed: 7, max_completion_tokens: 20, user: 'u', logprobs: false, reasoning_effort: 'high' }),
      mistralProfile,
      'mistral-small-latest',
      true,
    );
    expect(body).toEqual({
      model: 'mistral-small-latest',
      messages: simple().messages,
      random_seed: 7,
      max_tokens: 20,
      reasoning_effort: 'high',
      stream: true,
    });
  });

  it('allows name on tool messages only, and rejects logprobs', () => {
    const tool = simple({ messages: [{ role: 'tool', content: '42', tool_call_id: 'c1', name: 'calc' }] });
    expect(toChatRequestBody(tool, mistralProfile, 'm', false).messages).toEqual(tool.messages);
    const named = simple({ messages: [{ role: 'user', content: 'Hi', name: 'bob' }] });
    expect(rejection(() => toChatRequestBody(named, mistralProfile, 'm', false)).message).toBe(
      'Mistral does not support `name` on messages except on tool messages (messages[0]).',
    );
    expect(
      rejection(() => toChatRequestBody(simple({ logprobs: true }), mistralProfile, 'm', false)).param,
    ).toBe('logprobs');
    expect(
      rejection(() => toChatRequestBody(simple({ top_logprobs: 1 }), mistralProfile, 'm', false)).param,
    ).toBe('top_logprobs');
  });
});

describe('Groq and xAI request bodies', () => {
  it('Groq rejects its documented 400 fields and any message name', () => {
    for (const extra of [{ logprobs: true }, { top_logprobs: 1 }, { logit_bias: {} }, { n: 3 }]) {
      expect(() => toChatRequestBody(simple(extra), groqProfile, 'm', false)).toThrow(
        UnsupportedFeatureError,
      );
    }
    const tool = simple({ messages: [{ role: 'tool', content: '42', tool_call_id: 'c1', name: 'calc' }] });
    expect(rejection(() => toChatRequestBody(tool, groqProfile, 'm', false)).param).toBe('messages.name');
    const body = toChatRequestBody(
      simple({ max_tokens: 9, reasoning_effort: 'medium' }),
      groqProfile,
      'openai/gpt-oss-20b',
      true,
    );
    expect(body).toMatchObject({
      max_completion_tokens: 9,
      reasoning_effort: 'medium',
      stream_options: { include_usage: true },
    });
  });

  it('image-capable upstreams keep image parts and reject file parts', () => {
    const image = simple({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    });
    for (const profile of [xaiProfile, mistralProfile, groqProfile]) {
      expect(toChatRequestBody(image, profile, 'm', false).messages).toEqual(image.messages);
    }
    const file = simple({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,AAAA' } },
          ],
        },
      ],
    });
    expect(rejection(() => toChatRequestBody(file, mistralProfile, 'm', false)).param).toBe('content.file');
    expect(toChatRequestBody(file, openaiProfile, 'm', false).messages).toBe(file.messages);
  });

  it('xAI sends max_completion_tokens, passes its efforts and rejects web search (Live Search retired)', () => {
    const body = toChatRequestBody(
      simple({ max_tokens: 9, reasoning_effort: 'high' }),
      xaiProfile,
      'grok-3-mini',
      false,
    );
    expect(body).toEqual({
      model: 'grok-3-mini',
      messages: simple().messages,
      max_completion_tokens: 9,
      reasoning_effort: 'high',
    });
    expect(
      rejection(() => toChatRequestBody(simple({ reasoning_effort: 'minimal' }), xaiProfile, 'm', false))
        .message,
    ).toBe('xAI supports reasoning_effort none, low, medium, high; `minimal` cannot be served.');
    expect(
      rejection(() => toChatRequestBody(simple({ web_search: true }), xaiProfile, 'm', false)).message,
    ).toBe('xAI does not offer web search through this API.');
  });
});

describe('generic compatible upstream', () => {
  it('forwards both caps and roles as given', () => {
    const request = simple({
      messages: [{ role: 'developer', content: 'x' }],
      max_tokens: 3,
      max_completion_tokens: 4,
      reasoning_effort: 'max',
    });
    expect(toChatRequestBody(request, genericCompatibleProfile, 'local-model', false)).toEqual({
      model: 'local-model',
      messages: request.messages,
      max_tokens: 3,
      max_completion_tokens: 4,
      reasoning_effort: 'max',
    });
  });
});
