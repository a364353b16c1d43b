import { describe, expect, it } from 'vitest';
import {
  embeddingUsage,
  GeminiUsageAccumulator,
  generateContentUsage,
} from '../../../../../shared/src/native/google/usage.ts';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import { chunkings, utf8 } from '../chunking.ts';

// Stream chunks as the Gemini API sends them (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent):
// every chunk carries the usage so far, the last one (with finishReason) the final totals.
const CHUNKS = [
  {
    candidates: [{ content: { parts: [{ text: 'The' }], role: 'model' }, index: 0 }],
    usageMetadata: {
      promptTokenCount: 8,
      totalTokenCount: 8,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 8 }],
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mAitaJbKHY',
  },
  {
    candidates: [
      {
        content: { parts: [{ text: ' sky is blue {"a":"}"} 😀' }], role: 'model' },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 1008,
      cachedContentTokenCount: 1000,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 1030,
      totalTokenCount: 2058,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 1008 }],
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mAitaJbKHY',
  },
];

const FINAL = tokenUsage({
  inputTokens: 8,
  cacheReadTokens: 1000,
  outputTokens: 1050,
  reasoningTokens: 1030,
});

// With ?alt=sse: one `data:` event per chunk, CRLF line ends as Google sends them.
const SSE = CHUNKS.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('');
// Without: one JSON array, pretty-printed, elements separated by ",\r\n".
const ARRAY = `[${CHUNKS.map((chunk) => JSON.stringify(chunk, null, 2)).join('\n,\r\n')}\n]`;

describe('Gemini generateContent usage', () => {
  it('splits cached prompt tokens, adds tool-use prompt tokens to input and thoughts to output', () => {
    const usage = { ...CHUNKS[1]?.usageMetadata, toolUsePromptTokenCount: 50 };
    expect(generateContentUsage({ candidates: [], usageMetadata: usage })).toEqual(
      tokenUsage({ inputTokens: 58, cacheReadTokens: 1000, outputTokens: 1050, reasoningTokens: 1030 }),
    );
  });

  it('reports audio input, image output and Search grounding as unpriced', () => {
    const body = {
      candidates: [{ groundingMetadata: { webSearchQueries: ['weather'] }, finishReason: 'STOP' }],
      usageMetadata: {
        promptTokenCount: 400,
        candidatesTokenCount: 1300,
        promptTokensDetails: [
          { modality: 'TEXT', tokenCount: 100 },
          { modality: 'AUDIO', tokenCount: 300 },
        ],
        candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1290 }],
      },
    };
    expect(generateContentUsage(body)?.unpriced).toEqual([
      { name: 'audio_input_tokens', quantity: 300 },
      { name: 'image_output_tokens', quantity: 1290 },
      { name: 'google_search_grounding', quantity: 1 },
    ]);
  });

  it('counts embedding input from the request: texts and titles, non-text parts unpriced', () => {
    const batch = {
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'abcdefgh' }] }, title: 'abc' },
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: '😀😀😀😀😀' }, { inlineData: {} }] },
        },
      ],
    };
    expect(embeddingUsage(batch)).toEqual(
      tokenUsage({ inputTokens: 2 + 1 + 2, unpriced: [{ name: 'non_text_embedding_parts', quantity: 1 }] }),
    );
    expect(embeddingUsage({ content: { parts: [{ text: 'abcde' }] } }).inputTokens).toBe(2);
    expect(
      embeddingUsage({ content: { parts: [] } }, { usageMetadata: { promptTokenCount: 7 } }).inputTokens,
    ).toBe(7);
  });
});

describe('GeminiUsageAccumulator', () => {
  it('yields the last chunk usage of an alt=sse stream however it is cut', () => {
    for (const chunks of chunkings(utf8(SSE))) {
      const accumulator = new GeminiUsageAccumulator(true);
      for (const chunk of chunks) accumulator.push(chunk);
      expect(accumulator.finish()).toEqual({ usage: FINAL, complete: true, problem: undefined });
    }
  });

  it('yields the last element usage of a JSON-array stream however it is cut', () => {
    for (const chunks of chunkings(utf8(ARRAY))) {
      const accumulator = new GeminiUsageAccumulator(false);
      for (const chunk of chunks) accumulator.push(chunk);
      expect(accumulator.finish()).toEqual({ usage: FINAL, complete: true, problem: undefined });
    }
  });

  it('reports the running totals of a cut stream, not complete', () => {
    const accumulator = new GeminiUsageAccumulator(false);
    accumulator.push(utf8(ARRAY.slice(0, ARRAY.indexOf('\n,\r\n') + 2)));
    expect(accumulator.finish()).toEqual({
      usage: tokenUsage({ inputTokens: 8 }),
      complete: false,
      problem: undefined,
    });
  });

  it('stops observing a stream that is not a JSON array', () => {
    const accumulator = new GeminiUsageAccumulator(false);
    accumulator.push(utf8('data: {"usageMetadata":{}}\n\n'));
    expect(accumulator.finish().problem).toMatch(/unexpected byte/);
  });
});
