import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../../../shared/src/catalogue/load-catalogue.ts';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import {
  embeddingInputTokenBounds,
  embeddingsUsage,
  mapEmbeddingsModel,
} from '../../../../../shared/src/native/openai/embeddings.ts';
import { utf8 } from '../chunking.ts';

describe('Embeddings usage', () => {
  it('bills usage.prompt_tokens as input', () => {
    // As the API reference shows it (https://platform.openai.com/docs/api-reference/embeddings/object).
    const answer = {
      object: 'list',
      data: [],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 8, total_tokens: 8 },
    };
    expect(embeddingsUsage(answer)).toEqual(tokenUsage({ inputTokens: 8 }));
    expect(embeddingsUsage({ object: 'list', data: [] })).toBeUndefined();
  });
});

describe('Embeddings requests', () => {
  it('bounds the tokens of each input form: text, texts, token ids, arrays of token ids', () => {
    expect(embeddingInputTokenBounds({ input: 'abcdef' })).toEqual([3]);
    expect(embeddingInputTokenBounds({ input: ['a', 'é'.repeat(3)] })).toEqual([2, 3]);
    expect(embeddingInputTokenBounds({ input: [1, 2, 3, 4] })).toEqual([4]);
    expect(embeddingInputTokenBounds({ input: [[1, 2], [3]] })).toEqual([2, 1]);
    expect(embeddingInputTokenBounds({ input: { text: 'x' } })).toEqual([]);
  });

  it('maps only embedding models', () => {
    const catalogue = loadCatalogue();
    expect(mapEmbeddingsModel(utf8('{"model":"embedding-small","input":"x"}'), catalogue).model.id).toBe(
      'openai/text-embedding-3-small',
    );
    expect(() => mapEmbeddingsModel(utf8('{"model":"gpt-4o","input":"x"}'), catalogue)).toThrow(
      /does not exist/,
    );
  });
});
