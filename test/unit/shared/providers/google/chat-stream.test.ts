import { describe, expect, it } from 'vitest';
import {
  type ChatChunk,
  UpstreamProtocolError,
  UpstreamStreamError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { createGeminiStreamTranslator } from '../../../../../shared/src/providers/google/chat-stream.ts';
import { textStream } from './fixtures.ts';

function run(events: unknown[]): { chunks: ChatChunk[]; usage: unknown } {
  const translator = createGeminiStreamTranslator();
  const chunks = events.flatMap((event) => translator.onEvent({ data: JSON.stringify(event) }));
  return { chunks, usage: translator.finish().usage };
}

describe('google chat stream', () => {
  it('translates text events, role first, finish last, usage from the last event', () => {
    const { chunks, usage } = run(textStream);
    expect(chunks).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: ' world' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]);
    expect(usage).toEqual({ inputTokens: 5, cachedInputTokens: 0, outputTokens: 2, reasoningTokens: 0 });
  });

  it('sends thoughts as reasoning_content and whole function calls with stable indexes', () => {
    const { chunks, usage } = run([
      {
        candidates: [
          { content: { parts: [{ text: 'Let me think', thought: true }], role: 'model' }, index: 0 },
        ],
      },
      {
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'a', args: { x: 1 } }, thoughtSignature: 'U0lH' },
                { functionCall: { name: 'b', args: {} } },
              ],
              role: 'model',
            },
            index: 0,
          },
        ],
      },
      { candidates: [{ content: { parts: [{ functionCall: { name: 'c' } }] }, index: 0 }] },
      {
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: 50,
          cachedContentTokenCount: 10,
          candidatesTokenCount: 20,
          thoughtsTokenCount: 30,
        },
      },
    ]);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', reasoning_content: 'Let me think' });
    expect(chunks[1]?.choices[0]?.delta.tool_calls).toEqual([
      {
        index: 0,
        id: 'call_0_0__thought__U0lH',
        type: 'function',
        function: { name: 'a', arguments: '{"x":1}' },
      },
      { index: 1, id: 'call_0_1', type: 'function', function: { name: 'b', arguments: '{}' } },
    ]);
    expect(chunks[2]?.choices[0]?.delta.tool_calls).toEqual([
      { index: 2, id: 'call_0_2', type: 'function', function: { name: 'c', arguments: '{}' } },
    ]);
    expect(chunks[3]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(usage).toEqual({ inputTokens: 50, cachedInputTokens: 10, outputTokens: 50, reasoningTokens: 30 });
  });

  it('keeps candidates apart (role, tool indexes, finish) when n > 1', () => {
    const { chunks } = run([
      {
        candidates: [
          { content: { parts: [{ text: 'A' }] }, index: 0 },
          { content: { parts: [{ functionCall: { name: 'f' } }] }, index: 1 },
        ],
      },
      {
        candidates: [
          { finishReason: 'STOP', index: 0 },
          { finishReason: 'STOP', index: 1 },
        ],
      },
    ]);
    expect(chunks[0]?.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: 'A' }, finish_reason: null },
      {
        index: 1,
        delta: {
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_1_0', type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        },
        finish_reason: null,
      },
    ]);
    expect(chunks[1]?.choices.map((c) => c.finish_reason)).toEqual(['stop', 'tool_calls']);
  });

  it('sends deduplicated citations on the event that brought them', () => {
    const web = (id: string) => ({
      web: { uri: `https://vertexaisearch.cloud.google.com/r/${id}`, title: `${id}.com` },
    });
    const { chunks } = run([
      { candidates: [{ content: { parts: [{ text: 'Spain' }] }, index: 0 }] },
      {
        candidates: [
          {
            content: { parts: [{ text: ' won.' }] },
            finishReason: 'STOP',
            index: 0,
            groundingMetadata: { groundingChunks: [web('a'), web('b'), web('a'), { retrievedContext: {} }] },
          },
        ],
      },
      { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, toolUsePromptTokenCount: 7 } },
    ]);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.citations).toBeUndefined();
    expect(chunks[1]?.citations).toEqual([
      { title: 'a.com', url: 'https://vertexaisearch.cloud.google.com/r/a' },
      { title: 'b.com', url: 'https://vertexaisearch.cloud.google.com/r/b' },
    ]);
  });

  it('answers a blocked prompt with a content_filter chunk', () => {
    const { chunks, usage } = run([
      { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 4 } },
    ]);
    expect(chunks).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: 'content_filter' }] },
    ]);
    expect(usage).toEqual({ inputTokens: 4, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 });
  });

  it('maps MAX_TOKENS to length and reports no usage when none came', () => {
    const { chunks, usage } = run([
      { candidates: [{ content: { parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS' }] },
    ]);
    expect(chunks[0]?.choices[0]?.finish_reason).toBe('length');
    expect(usage).toBeUndefined();
  });

  it('throws UpstreamStreamError with the provider status for an in-stream error, without leaking hosts', () => {
    const translator = createGeminiStreamTranslator();
    translator.onEvent({ data: JSON.stringify(textStream[0]) });
    const error = {
      error: { code: 503, message: 'Overloaded, see https://status.example.com', status: 'UNAVAILABLE' },
    };
    let thrown: unknown;
    try {
      translator.onEvent({ data: JSON.stringify(error) });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UpstreamStreamError);
    expect((thrown as UpstreamStreamError).status).toBe(503);
    expect((thrown as UpstreamStreamError).message).toBe('Gemini UNAVAILABLE: Overloaded, see [url]');
  });

  it('throws UpstreamProtocolError on events that are not GenerateContentResponses, ignores empty data', () => {
    const translator = createGeminiStreamTranslator();
    expect(translator.onEvent({ data: '' })).toEqual([]);
    expect(() => translator.onEvent({ data: 'not json' })).toThrow(UpstreamProtocolError);
    expect(() => translator.onEvent({ data: '{"candidates":{}}' })).toThrow(UpstreamProtocolError);
  });
});
