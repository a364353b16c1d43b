import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../../shared/src/providers/anthropic/index.ts';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import { textMessage, thinkingMessage, toolUseMessage, webSearchMessage } from './fixtures.ts';

// biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
const chat = anthropicAdapter.chat!;

describe('Anthropic chat response', () => {
  it('maps a text answer and its usage', () => {
    expect(chat.response(textMessage)).toEqual({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi! My name is Claude.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { inputTokens: 2095, cachedInputTokens: 0, outputTokens: 503, reasoningTokens: 0 },
    });
  });

  it('maps tool_use blocks to tool calls and counts cache reads and writes as input', () => {
    const result = chat.response(toolUseMessage);
    expect(result.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: "I'll check the current weather in San Francisco for you.",
        tool_calls: [
          {
            id: 'toolu_01A09q90qw90lq917835lq9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    });
    expect(result.usage).toEqual({
      inputTokens: 2000,
      cachedInputTokens: 1500,
      outputTokens: 60,
      reasoningTokens: 0,
    });
  });

  it('gives null content when the answer is only tool calls', () => {
    const onlyTool = { ...toolUseMessage, content: [toolUseMessage.content[1]] };
    expect(chat.response(onlyTool).choices[0]?.message.content).toBeNull();
  });

  it('returns thinking as reasoning_content, skips redacted thinking, reports thinking tokens', () => {
    const result = chat.response(thinkingMessage);
    expect(result.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Based on my analysis...',
      reasoning_content: 'Let me analyze this step by step...',
    });
    expect(result.usage).toEqual({
      inputTokens: 50,
      cachedInputTokens: 0,
      outputTokens: 900,
      reasoningTokens: 700,
    });
  });

  it('returns web results and web citations as citations, one per url', () => {
    const result = chat.response(webSearchMessage);
    expect(result.choices[0]?.message.content).toBe(
      "I'll search for when Claude Shannon was born.Claude Shannon was born on April 30, 1916, in Petoskey, Michigan",
    );
    expect(result.citations).toEqual([
      { title: 'Claude Shannon - Wikipedia', url: 'https://en.wikipedia.org/wiki/Claude_Shannon' },
      { title: 'Claude Shannon | Britannica', url: 'https://www.britannica.com/biography/Claude-Shannon' },
    ]);
    const failedSearch = {
      ...webSearchMessage,
      content: [
        {
          type: 'web_search_tool_result',
          tool_use_id: 'x',
          content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
        },
      ],
    };
    expect(chat.response(failedSearch).citations).toBeUndefined();
  });

  it('turns the JSON-output tool into content with finish_reason stop', () => {
    const json = {
      ...textMessage,
      content: [{ type: 'tool_use', id: 'toolu_9', name: 'respond_with_json', input: { answer: 'yes' } }],
      stop_reason: 'tool_use',
    };
    expect(chat.response(json).choices[0]).toMatchObject({
      message: { role: 'assistant', content: '{"answer":"yes"}' },
      finish_reason: 'stop',
    });
  });

  it('maps every documented stop_reason', () => {
    const finish = (stop_reason: string) =>
      chat.response({ ...textMessage, stop_reason }).choices[0]?.finish_reason;
    expect(finish('end_turn')).toBe('stop');
    expect(finish('stop_sequence')).toBe('stop');
    expect(finish('pause_turn')).toBe('stop');
    expect(finish('max_tokens')).toBe('length');
    expect(finish('model_context_window_exceeded')).toBe('length');
    expect(finish('refusal')).toBe('content_filter');
    expect(finish('tool_use')).toBe('stop');
    expect(finish('some_future_reason')).toBe('stop');
  });

  it('ignores unknown block types and throws UpstreamProtocolError on undocumented shapes', () => {
    const extra = {
      ...textMessage,
      content: [...textMessage.content, { type: 'container_upload', file_id: 'f' }],
    };
    expect(chat.response(extra).choices[0]?.message.content).toBe('Hi! My name is Claude.');
    expect(() => chat.response({ error: 'nope' })).toThrow(UpstreamProtocolError);
    expect(() => chat.response({ ...textMessage, usage: { input_tokens: 'many' } })).toThrow(
      /usage\.input_tokens/,
    );
    expect(() => chat.response({ ...textMessage, content: [{ type: 'text' }] })).toThrow(
      UpstreamProtocolError,
    );
    expect(() => chat.response({ ...textMessage, content: [{ type: 'tool_use', name: 'f' }] })).toThrow(
      UpstreamProtocolError,
    );
    expect(() => chat.response(null)).toThrow(UpstreamProtocolError);
  });
});
