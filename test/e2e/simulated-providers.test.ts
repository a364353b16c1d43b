import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { startTestWorker, type TestWorker } from '../helpers/test-worker.ts';

// The local stack's quick start: no provider key, SIMULATE_PROVIDERS on; every model is listed and
// answered offline by the demo simulator, at the model's own catalogue price.
let gateway: ListeningApp;
let worker: TestWorker;
let client: OpenAI;
beforeAll(async () => {
  gateway = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, SIMULATE_PROVIDERS: 'true' } });
  worker = await startTestWorker(gateway.config);
  const { key } = await createFundedKey(gateway.app, { topUp: 100_000 });
  client = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => {
  await worker?.close();
  await gateway?.close();
});

describe('SIMULATE_PROVIDERS: models of providers without a key', () => {
  it('are all listed', async () => {
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThanOrEqual(80);
    expect(models.data.map((m) => m.id)).toContain('openai/gpt-4o-mini');
  });

  it('answer chat (plain and streamed) and embeddings, charged at their own price', async () => {
    const chat = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(chat.choices[0]?.message.content).toBeTruthy();
    expect((chat as unknown as { service: { cost: number } }).service.cost).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: 'anthropic/claude-opus-4-5',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    const embedding = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hi' });
    expect(embedding.data[0]?.embedding.length).toBeGreaterThan(0);
  });

  it('answer the default media models (image, speech, transcription)', async () => {
    const image = await client.images.generate({ prompt: 'a red square' } as never);
    expect(image.data?.[0]?.b64_json).toBeTruthy();
    const speech = await client.audio.speech.create({ input: 'hello there', voice: 'alloy' } as never);
    expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const wav = wavOfSeconds(1);
    const text = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav') } as never);
    expect(typeof text.text).toBe('string');
  });
});
