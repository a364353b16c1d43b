import { describe, expect, it } from 'vitest';
import { fakeVector } from '../fakes/openai-fake-answers.ts';
import { lastBody, serviceOf, useGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';

const { g, funded, client } = useGatewayWithFakes();

function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('embeddings over the OpenAI upstream', () => {
  it("decodes the SDK's default (base64) call to the upstream's numbers and charges the cost", async () => {
    const before = await g.balance(funded.accountId);
    const result = await client.embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: ['first text', 'second'],
    });
    expect(result.object).toBe('list');
    expect(result.model).toBe('openai/text-embedding-3-small');
    expect(result.data.map((d) => d.index)).toEqual([0, 1]);
    expect(Array.from(result.data[0]?.embedding ?? [])).toEqual(fakeVector('first text', 16));
    expect(Array.from(result.data[1]?.embedding ?? [])).toEqual(fakeVector('second', 16));
    expect(result.usage).toEqual({ prompt_tokens: 3 + 2, total_tokens: 5 });
    // The upstream is always asked for floats; the gateway encodes base64 itself.
    expect(lastBody(g.openai)).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'float' });
    const cost = serviceOf(result).cost;
    expect(cost).toBeGreaterThan(0);
    expect(before - (await g.balance(funded.accountId))).toBeCloseTo(cost, 6);
  });

  it('answers float arrays when asked for float, with dimensions forwarded', async () => {
    const result = await client.embeddings.create({
      model: 'embedding-small',
      input: 'one',
      encoding_format: 'float',
      dimensions: 4,
    });
    expect(result.data[0]?.embedding).toEqual(fakeVector('one', 4));
    expect(lastBody(g.openai).dimensions).toBe(4);
  });

  it('answers little-endian float32 base64 when asked for base64 explicitly', async () => {
    const result = await client.embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'raw',
      encoding_format: 'base64',
    });
    const encoded = result.data[0]?.embedding as unknown as string;
    expect(typeof encoded).toBe('string');
    expect(decodeFloat32(encoded)).toEqual(fakeVector('raw', 16));
  });
});

describe('embeddings over the Gemini upstream', () => {
  it('embeds through batchEmbedContents, decoded to numbers by the SDK', async () => {
    const result = await client.embeddings.create({
      model: 'google/gemini-embedding-001',
      input: ['alpha', 'beta'],
      dimensions: 6,
    });
    expect(result.data).toHaveLength(2);
    const float = await client.embeddings.create({
      model: 'google/gemini-embedding-001',
      input: ['alpha', 'beta'],
      dimensions: 6,
      encoding_format: 'float',
    });
    for (const [i, item] of result.data.entries()) {
      expect(item.embedding).toHaveLength(6);
      const exact = float.data[i]?.embedding ?? [];
      // base64 carries float32: equal to the float answer at float32 precision.
      expect(Array.from(item.embedding)).toEqual(exact.map((v) => Math.fround(v)));
    }
    const sent = lastBody(g.gemini).requests as Array<Record<string, unknown>>;
    expect(sent[0]).toEqual({
      model: 'models/gemini-embedding-001',
      content: { parts: [{ text: 'alpha' }] },
      outputDimensionality: 6,
    });
    expect(g.gemini.requests.at(-1)?.url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // Gemini reports no token counts: ceil(characters / 4) per input.
    expect(float.usage.prompt_tokens).toBe(2 + 1);
    expect(serviceOf(float).cost).toBeGreaterThan(0);
  });
});

describe('embeddings: wrong model', () => {
  it('answers 404 model_not_found for a chat model', async () => {
    const error = await client.embeddings
      .create({ model: 'openai/gpt-4o', input: 'x' })
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ status: 404, error: { code: 'model_not_found' } });
  });
});
