import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '../../../../../shared/src/providers/chat-types.ts';
import { demoEmbeddings, demoProvider } from '../../../../../shared/src/providers/demo/index.ts';

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe('demo embeddings (simulator)', () => {
  it('gives deterministic unit vectors of 256 dimensions by default, one per input in order', () => {
    const result = demoEmbeddings.embed({ model: 'demo/embedding', input: ['hello', 'world', 'hello'] });
    expect(result.vectors).toHaveLength(3);
    for (const vector of result.vectors) {
      expect(vector).toHaveLength(256);
      expect(norm(vector)).toBeCloseTo(1, 10);
    }
    expect(result.vectors[0]).toEqual(result.vectors[2]);
    expect(result.vectors[0]).not.toEqual(result.vectors[1]);
    expect(demoProvider.embeddings.embed({ model: 'demo/embedding', input: 'hello' }).vectors[0]).toEqual(
      result.vectors[0],
    );
  });

  it('counts tokens by the demo rule', () => {
    // ceil(5/4) + ceil(11/4) + ceil(0/4) = 2 + 3 + 0
    expect(
      demoEmbeddings.embed({ model: 'demo/embedding', input: ['hello', 'hello world', ''] }).usage,
    ).toEqual({ inputTokens: 5 });
  });

  it('honours dimensions from 1 to 3072 and rejects others', () => {
    expect(demoEmbeddings.embed({ model: 'm', input: 'a', dimensions: 1 }).vectors[0]?.map(Math.abs)).toEqual(
      [1],
    );
    expect(demoEmbeddings.embed({ model: 'm', input: 'a', dimensions: 3072 }).vectors[0]).toHaveLength(3072);
    for (const dimensions of [0, 3073, 1.5]) {
      expect(() => demoEmbeddings.embed({ model: 'm', input: 'a', dimensions })).toThrow(
        UnsupportedFeatureError,
      );
    }
  });
});
