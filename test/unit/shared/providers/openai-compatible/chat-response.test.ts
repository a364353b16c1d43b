import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import { deepseekAdapter } from '../../../../../shared/src/providers/deepseek/index.ts';
import { groqAdapter } from '../../../../../shared/src/providers/groq/index.ts';
import { mistralAdapter } from '../../../../../shared/src/providers/mistral/index.ts';
import { openaiAdapter, openaiProfile } from '../../../../../shared/src/providers/openai/index.ts';
import { fromChatResponse } from '../../../../../shared/src/providers/openai-compatible/chat-response.ts';
import { xaiAdapter, xaiProfile } from '../../../../../shared/src/providers/xai/index.ts';
import {
  deepseekReasonerCompletion,
  groqReasoningCompletion,
  mistralThinkingCompletion,
  mistralToolCompletion,
  openaiCompletion,
  openaiReasoningUsage,
  openaiSearchCompletion,
  openaiToolCallCompletion,
  xaiReasoningCompletion,
} from './fixtures.ts';

const openai = (json: unknown) => fromChatResponse(json, openaiProfile);

describe('non-streamed answer mapping', () => {
  it('maps OpenAI’s documented completion', () => {
    expect(openaiAdapter.chat?.response(openaiCompletion)).toEqual({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I assist you today?' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { inputTokens: 19, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
    });
  });

  it('maps tool calls in order with their ids', () => {
    const result = openai(openaiToolCallCompletion);
    expect(result.choices[0]?.message.content).toBeNull();
    expect(result.choices[0]?.finish_reason).toBe('tool_calls');
    expect(result.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_abc123',
        type: 'function',
        function: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' },
      },
      {
        id: 'call_def456',
        type: 'function',
        function: { name: 'get_current_weather', arguments: '{"location": "Paris"}' },
      },
    ]);
  });

  it('counts OpenAI reasoning tokens inside completion tokens, and cached tokens inside prompt tokens', () => {
    const result = openai({ ...openaiCompletion, usage: openaiReasoningUsage });
    expect(result.usage).toEqual({
      inputTokens: 1124,
      cachedInputTokens: 1024,
      outputTokens: 1186,
      reasoningTokens: 1024,
    });
  });

  it('turns url_citation annotations into citations', () => {
    expect(openai(openaiSearchCompletion).citations).toEqual([
      { title: 'Park opens', url: 'https://news.example.org/park' },
    ]);
  });

  it('keeps DeepSeek reasoning_content and reads prompt_cache_hit_tokens', () => {
    const result = deepseekAdapter.chat?.response({
      ...deepseekReasonerCompletion,
      usage: { ...deepseekReasonerCompletion.usage, prompt_cache_hit_tokens: 8 },
    });
    expect(result?.choices[0]?.message).toEqual({
      role: 'assistant',
      content: '9.11 is smaller.',
      reasoning_content: 'Compare 9.11 and 9.8 ...',
    });
    expect(result?.usage).toEqual({
      inputTokens: 16,
      cachedInputTokens: 8,
      outputTokens: 108,
      reasoningTokens: 96,
    });
  });

  it('adds xAI reasoning tokens to the billed output (total = prompt + completion + reasoning) and maps top-level citations', () => {
    const result = xaiAdapter.chat?.response(xaiReasoningCompletion);
    expect(result?.usage).toEqual({
      inputTokens: 663,
      cachedInputTokens: 654,
      outputTokens: 174,
      reasoningTokens: 124,
    });
    expect(result?.citations).toEqual([
      { title: null, url: 'https://x.ai/news' },
      { title: null, url: 'https://docs.x.ai/overview' },
    ]);
  });

  it('falls back to the profile when total_tokens cannot tell the reasoning convention', () => {
    const usage = {
      prompt_tokens: 10,
      completion_tokens: 50,
      completion_tokens_details: { reasoning_tokens: 20 },
    };
    expect(fromChatResponse({ ...openaiCompletion, usage }, xaiProfile).usage.outputTokens).toBe(70);
    expect(fromChatResponse({ ...openaiCompletion, usage }, openaiProfile).usage.outputTokens).toBe(50);
  });

  it('splits Mistral thinking chunks into reasoning_content and text', () => {
    const message = mistralAdapter.chat?.response(mistralThinkingCompletion).choices[0]?.message;
    expect(message).toEqual({
      role: 'assistant',
      content: 'There are 3.',
      reasoning_content: 'Let me count the letters.',
    });
  });

  it('serializes Mistral object arguments and defaults the tool type', () => {
    const choice = mistralAdapter.chat?.response(mistralToolCompletion).choices[0];
    expect(choice?.message.tool_calls).toEqual([
      {
        id: 'D681PevKs',
        type: 'function',
        function: { name: 'retrieve_payment_status', arguments: '{"transaction_id":"T1001"}' },
      },
    ]);
    expect(choice?.finish_reason).toBe('tool_calls');
  });

  it('keeps Groq’s `reasoning` as reasoning_content', () => {
    const result = groqAdapter.chat?.response(groqReasoningCompletion);
    expect(result?.choices[0]?.message.reasoning_content).toBe('The capital of France is Paris.');
    expect(result?.usage).toEqual({
      inputTokens: 80,
      cachedInputTokens: 0,
      outputTokens: 30,
      reasoningTokens: 0,
    });
  });

  it('answers a refusal as content, and maps finish reasons', () => {
    const refusal = structuredClone(openaiCompletion) as Record<string, unknown> & typeof openaiCompletion;
    const choice = refusal.choices[0] as { message: Record<string, unknown>; finish_reason: string };
    choice.message = { role: 'assistant', content: null, refusal: 'I cannot help with that.' };
    expect(openai(refusal).choices[0]?.message.content).toBe('I cannot help with that.');
    for (const [upstream, mapped] of [
      ['model_length', 'length'],
      ['insufficient_system_resource', 'length'],
      ['content_filter', 'content_filter'],
      ['function_call', 'tool_calls'],
      ['end_turn', 'stop'],
    ]) {
      choice.finish_reason = upstream ?? '';
      expect(openai(refusal).choices[0]?.finish_reason).toBe(mapped);
    }
  });

  it('throws UpstreamProtocolError on an undocumented shape, missing usage, or finish_reason error', () => {
    expect(() => openai({ choices: 'nope', usage: openaiCompletion.usage })).toThrow(UpstreamProtocolError);
    expect(() => openai({ error: { message: 'x' } })).toThrow(UpstreamProtocolError);
    expect(() => openai({ ...openaiCompletion, usage: undefined })).toThrow(
      'OpenAI chat answer carries no usage.',
    );
    const failed = {
      ...openaiCompletion,
      choices: [{ ...openaiCompletion.choices[0], finish_reason: 'error' }],
    };
    expect(() => openai(failed)).toThrow(UpstreamProtocolError);
  });
});
