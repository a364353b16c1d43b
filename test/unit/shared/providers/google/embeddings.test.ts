import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import {
  estimateEmbeddingTokens,
  fromBatchEmbedResponse,
  googleEmbeddings,
} from '../../../../../shared/src/providers/google/embeddings.ts';

const target = {
  baseUrl: 'https://generativelanguage.googleapis.com',
  apiKey: 'k',
  nativeModel: 'gemini-embedding-001',
};

describe('google embeddings', () => {
  it('builds one batchEmbedContents request per input, with outputDimensionality', () => {
    const upstream = googleEmbeddings.request(
      {
        model: 'google/gemini-embedding-001',
        input: ['a', 'bc'],
        dimensions: 768,
        encoding_format: 'base64',
      },
      target,
    );
    expect(upstream.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents',
    );
    expect(upstream.headers['x-goog-api-key']).toBe('k');
    expect(JSON.parse(upstream.body)).toEqual({
      requests: [
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'a' }] },
          outputDimensionality: 768,
        },
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'bc' }] },
          outputDimensionality: 768,
        },
      ],
    });
  });

  it('accepts a single string input and omits outputDimensionality when not asked', () => {
    const upstream = googleEmbeddings.request({ model: 'm', input: 'hello' }, target);
    expect(JSON.parse(upstream.body)).toEqual({
      requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hello' }] } }],
    });
  });

  it('returns the vectors in order and estimates tokens as ceil(code points / 4) per input', () => {
    const json = { embeddings: [{ values: [0.1, -0.2] }, { values: [0.3, 0.4] }] };
    const request = { model: 'm', input: ['abcde', 'héé😀'] };
    expect(fromBatchEmbedResponse(json, request)).toEqual({
      vectors: [
        [0.1, -0.2],
        [0.3, 0.4],
      ],
      usage: { inputTokens: 3 },
    });
    expect(estimateEmbeddingTokens(['', 'abcd', 'abcde'])).toBe(3);
  });

  it('prefers upstream token counts when present', () => {
    const json = { embeddings: [{ values: [1] }], usageMetadata: { promptTokenCount: 11 } };
    expect(fromBatchEmbedResponse(json, { model: 'm', input: 'x' }).usage.inputTokens).toBe(11);
  });

  it('throws UpstreamProtocolError on other shapes', () => {
    expect(() => fromBatchEmbedResponse({ embedding: { values: [1] } })).toThrow(UpstreamProtocolError);
    expect(() => fromBatchEmbedResponse({ embeddings: [{ values: ['x'] }] })).toThrow(UpstreamProtocolError);
  });
});
