import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import { deepseekAdapter } from '../../../../../shared/src/providers/deepseek/index.ts';
import { groqAdapter } from '../../../../../shared/src/providers/groq/index.ts';
import { mistralAdapter } from '../../../../../shared/src/providers/mistral/index.ts';
import { openaiAdapter } from '../../../../../shared/src/providers/openai/index.ts';
import { xaiAdapter } from '../../../../../shared/src/providers/xai/index.ts';

const target = {
  baseUrl: 'https://api.openai.com/v1',
  apiKey: 'sk-k',
  nativeModel: 'text-embedding-3-small',
};

/** OpenAI API reference, Create embeddings, example response (vector shortened). */
const openaiEmbeddings = {
  object: 'list',
  data: [
    { object: 'embedding', embedding: [0.0023064255, -0.009327292], index: 1 },
    { object: 'embedding', embedding: [-0.0028842222, 0.0071], index: 0 },
  ],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 8, total_tokens: 8 },
};

describe('embeddings', () => {
  it('asks OpenAI for floats with the requested dimensions', () => {
    const built = openaiAdapter.embeddings?.request(
      { model: 'openai/text-embedding-3-small', input: ['a', 'b'], dimensions: 2, encoding_format: 'base64' },
      target,
    );
    expect(built?.url).toBe('https://api.openai.com/v1/embeddings');
    expect(built?.headers.authorization).toBe('Bearer sk-k');
    expect(JSON.parse(built?.body ?? '')).toEqual({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      dimensions: 2,
      encoding_format: 'float',
    });
  });

  it('sends Mistral output_dimension and no encoding_format', () => {
    const built = mistralAdapter.embeddings?.request(
      { model: 'mistral/codestral-embed', input: 'x', dimensions: 256 },
      { baseUrl: 'https://api.mistral.ai/v1', apiKey: 'k', nativeModel: 'codestral-embed' },
    );
    expect(built?.url).toBe('https://api.mistral.ai/v1/embeddings');
    expect(JSON.parse(built?.body ?? '')).toEqual({
      model: 'codestral-embed',
      input: 'x',
      output_dimension: 256,
    });
  });

  it('has no embeddings for upstreams without that endpoint', () => {
    expect(deepseekAdapter.embeddings).toBeUndefined();
    expect(xaiAdapter.embeddings).toBeUndefined();
    expect(groqAdapter.embeddings).toBeUndefined();
  });

  it('orders vectors by index and reads prompt_tokens', () => {
    expect(openaiAdapter.embeddings?.response(openaiEmbeddings, { model: 'm', input: ['a', 'b'] })).toEqual({
      vectors: [
        [-0.0028842222, 0.0071],
        [0.0023064255, -0.009327292],
      ],
      usage: { inputTokens: 8 },
    });
  });

  it('decodes a base64 (little-endian float32) embedding should an upstream send one', () => {
    const bytes = Buffer.alloc(8);
    bytes.writeFloatLE(0.5, 0);
    bytes.writeFloatLE(-1.25, 4);
    const json = { data: [{ index: 0, embedding: bytes.toString('base64') }], usage: { prompt_tokens: 1 } };
    expect(openaiAdapter.embeddings?.response(json, { model: 'm', input: 'x' }).vectors).toEqual([
      [0.5, -1.25],
    ]);
  });

  it('rejects answers without the documented shape', () => {
    const response =
      (json: unknown, input: string[] = ['x']) =>
      () =>
        openaiAdapter.embeddings?.response(json, { model: 'm', input });
    expect(response({ data: [] })).toThrow('OpenAI embeddings answer carries no usage.');
    expect(response({ data: 'x', usage: { prompt_tokens: 1 } })).toThrow(UpstreamProtocolError);
    const duplicate = {
      data: [
        { index: 0, embedding: [1] },
        { index: 0, embedding: [2] },
      ],
      usage: { prompt_tokens: 1 },
    };
    expect(response(duplicate, ['a', 'b'])).toThrow('inconsistent indexes');
    expect(
      response({ data: [{ index: 0, embedding: [1] }], usage: { prompt_tokens: 1 } }, ['a', 'b']),
    ).toThrow('OpenAI embeddings answer has 1 vectors for 2 inputs.');
    const gap = { data: [{ index: 1, embedding: [1] }], usage: { prompt_tokens: 1 } };
    expect(response(gap)).toThrow(UpstreamProtocolError);
  });
});
