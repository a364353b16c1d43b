import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

let t: ListeningApp;
let client: OpenAI;
let accountId: string;
beforeAll(async () => {
  t = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  const funded = await createFundedKey(t.app, { topUp: 100_000 });
  accountId = funded.accountId;
  client = new OpenAI({ apiKey: funded.key, baseURL: `${t.origin}/v1`, maxRetries: 0 });
});
afterAll(() => t.close());

describe('the demo provider through the OpenAI SDK', () => {
  it('answers a chat completion and charges its reported cost', async () => {
    const before = await t.services.billing.balanceOf(accountId);
    const completion = await client.chat.completions.create({
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toContain('Hello there');
    const service = (completion as unknown as { service: { cost: number; currency: string } }).service;
    expect(service.currency).toBe('IRT');
    expect(service.cost).toBeGreaterThan(0);
    await t.services.billing.flush(); // the charge is written after the answer, in a batch
    const after = await t.services.billing.balanceOf(accountId);
    expect(Number(before - after) / 1e6).toBeCloseTo(service.cost, 6);
  });

  it('streams with usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'Stream me' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toContain('Stream me');
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it('embeds, decoding the default base64 encoding to numbers', async () => {
    const result = await client.embeddings.create({ model: 'demo/embedding', input: ['a', 'b'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]?.embedding.length).toBeGreaterThan(0);
    expect(typeof result.data[0]?.embedding[0]).toBe('number');
    expect(await t.services.billing.checkLedger()).toEqual([]);
  });
});
