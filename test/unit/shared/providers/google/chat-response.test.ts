import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import { finishReasonOf, toChatResult } from '../../../../../shared/src/providers/google/chat-response.ts';
import {
  blockedPromptResponse,
  functionCallResponse,
  groundedResponse,
  textResponse,
  thinkingResponse,
} from './fixtures.ts';

describe('google chat response', () => {
  it('maps a text answer and its usage', () => {
    expect(toChatResult(textResponse)).toEqual({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'AI learns patterns from data.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { inputTokens: 8, cachedInputTokens: 0, outputTokens: 13, reasoningTokens: 0 },
    });
  });

  it('maps function calls to tool calls with deterministic ids carrying thought signatures', () => {
    const [choice] = toChatResult(functionCallResponse).choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: 'call_0_0__thought__CiQBVKhc7qXX',
        type: 'function',
        function: {
          name: 'schedule_meeting',
          arguments: '{"attendees":["Bob","Alice"],"date":"2025-03-27","time":"10:00","topic":"Q3 planning"}',
        },
      },
      {
        id: 'call_0_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
      },
    ]);
  });

  it('uses the upstream function call id when Gemini gives one, and {} for missing args', () => {
    const json = {
      candidates: [
        { content: { parts: [{ functionCall: { id: 'fc-9', name: 'ping' } }] }, finishReason: 'STOP' },
      ],
    };
    expect(toChatResult(json).choices[0]?.message.tool_calls).toEqual([
      { id: 'fc-9', type: 'function', function: { name: 'ping', arguments: '{}' } },
    ]);
  });

  it('returns thought parts as reasoning_content and bills thoughts and cache', () => {
    const result = toChatResult(thinkingResponse);
    expect(result.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'The answer is 42.',
      reasoning_content: '**Weighing the options**\nThe user asks…',
    });
    expect(result.usage).toEqual({
      inputTokens: 2000,
      cachedInputTokens: 1500,
      outputTokens: 126,
      reasoningTokens: 120,
    });
  });

  it('returns grounding sources as deduplicated citations and bills tool-use prompt tokens as input', () => {
    const result = toChatResult(groundedResponse);
    expect(result.citations).toEqual([
      { title: 'aljazeera.com', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/aaa' },
      { title: 'uefa.com', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/bbb' },
    ]);
    expect(result.usage.inputTokens).toBe(312);
  });

  it('answers a blocked prompt with a content_filter choice and null content', () => {
    expect(toChatResult(blockedPromptResponse)).toEqual({
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null },
          finish_reason: 'content_filter',
          logprobs: null,
        },
      ],
      usage: { inputTokens: 9, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 },
    });
  });

  it('maps several candidates in index order', () => {
    const json = {
      candidates: [
        { content: { parts: [{ text: 'b' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 1 },
        { content: { parts: [{ text: 'a' }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2 },
    };
    const choices = toChatResult(json).choices;
    expect(choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'a', 'stop'],
      [1, 'b', 'length'],
    ]);
  });

  it('maps finish reasons', () => {
    expect(finishReasonOf('STOP', false)).toBe('stop');
    expect(finishReasonOf('STOP', true)).toBe('tool_calls');
    expect(finishReasonOf(undefined, false)).toBe('stop');
    expect(finishReasonOf('MAX_TOKENS', true)).toBe('length');
    for (const reason of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII']) {
      expect(finishReasonOf(reason, false)).toBe('content_filter');
    }
    expect(finishReasonOf('SOMETHING_NEW', false)).toBe('stop');
  });

  it('keeps a candidate stopped by safety without content', () => {
    const json = {
      candidates: [{ finishReason: 'SAFETY', index: 0 }],
      usageMetadata: { promptTokenCount: 3 },
    };
    expect(toChatResult(json).choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null },
      finish_reason: 'content_filter',
      logprobs: null,
    });
  });

  it('throws UpstreamProtocolError on bodies without the documented shape', () => {
    expect(() => toChatResult({})).toThrow(UpstreamProtocolError);
    expect(() => toChatResult('text')).toThrow(UpstreamProtocolError);
    expect(() => toChatResult({ candidates: 'x' })).toThrow(UpstreamProtocolError);
    expect(() => toChatResult({ candidates: [{ content: { parts: [{ text: 5 }] } }] })).toThrow(
      UpstreamProtocolError,
    );
    expect(() => toChatResult({ candidates: [], usageMetadata: { promptTokenCount: -1 } })).toThrow(
      UpstreamProtocolError,
    );
  });
});
