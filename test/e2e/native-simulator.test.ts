/**
 * The native APIs on a gateway without provider keys (the local stack: `SIMULATE_PROVIDERS` on):
 * the native simulator answers each in its provider's format, through the official SDKs, billed
 * at the model's catalogue price from the usage it reports, like a provider's answer. Demo models
 * are served under every native prefix whose endpoint fits their type.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../shared/src/catalogue/catalogue.ts';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { mp3OfSeconds } from '../../shared/src/file-formats/builders/mp3.ts';
import { anthropicUsage } from '../../shared/src/native/anthropic/usage.ts';
import { geminiUsage } from '../../shared/src/native/google/usage.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import type { NativeUsage } from '../../shared/src/native/native-usage.ts';
import { type CreatedKey, createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

let gateway: ListeningApp;
let funded: CreatedKey;
beforeAll(async () => {
  gateway = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, SIMULATE_PROVIDERS: 'true' } });
  funded = await createFundedKey(gateway.app, { topUp: 100_000 });
});
afterAll(async () => {
  if (gateway !== undefined) expect(await gateway.services.billing.checkLedger()).toEqual([]);
  await gateway?.close();
});

function modelOf(id: string): CatalogueModel {
  const model = loadConfiguredCatalogue(gateway.config).get(id);
  if (model === undefined) throw new Error(`no model ${id}`);
  return model;
}

async function balance(): Promise<bigint> {
  await gateway.services.billing.flush();
  return gateway.services.billing.balanceOf(funded.accountId);
}

/** The usage the service charged for the last request, from the cost header or trailer. */
function charged(costIrt: string | null): bigint {
  return BigInt(Math.round(Number(costIrt) * 1e6));
}

/** Runs `call`, and checks that it cost exactly what the catalogue prices `usage` at. */
async function expectCharged(model: string, call: () => Promise<NativeUsage>): Promise<void> {
  const before = await balance();
  const usage = await call();
  const cost = nativeCost(modelOf(model), usage);
  expect(cost).toBeGreaterThan(0n);
  expect(await balance()).toBe(before - cost);
}

describe('/anthropic through the simulator', () => {
  const client = () =>
    new Anthropic({ apiKey: funded.key, baseURL: `${gateway.origin}/anthropic`, maxRetries: 0 });

  it('create, stream and count_tokens on a Claude model, billed at its price', async () => {
    const model = 'anthropic/claude-sonnet-4-5';
    await expectCharged(model, async () => {
      const message = await client().messages.create({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello Claude' }],
      });
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Demo answer to: Hello Claude' });
      return anthropicUsage(message.usage as unknown as Record<string, unknown>);
    });
    await expectCharged(model, async () => {
      const stream = client().messages.stream({
        model: 'sonnet',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Stream it' }],
      });
      const text: string[] = [];
      stream.on('text', (delta) => text.push(delta));
      const final = await stream.finalMessage();
      expect(text.join('')).toBe('Demo answer to: Stream it');
      return anthropicUsage(final.usage as unknown as Record<string, unknown>);
    });
    const before = await balance();
    const count = await client().messages.countTokens({
      model,
      messages: [{ role: 'user', content: 'abcdefgh' }],
    });
    expect(count.input_tokens).toBe(2);
    expect(await balance()).toBe(before);
  });

  it('a demo model is served under /anthropic too; a model of another provider is not', async () => {
    await expectCharged('demo/chat', async () => {
      const message = await client().messages.create({
        model: 'demo/chat',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      });
      return anthropicUsage(message.usage as unknown as Record<string, unknown>);
    });
    const refused = await client()
      .messages.create({ model: 'openai/gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404 });
  });
});

describe('/gemini through the simulator', () => {
  const client = () =>
    new GoogleGenAI({ apiKey: funded.key, httpOptions: { baseUrl: `${gateway.origin}/gemini` } });

  it('generate, stream, count and embed on Gemini models, billed at their price', async () => {
    const model = 'google/gemini-2.5-flash';
    await expectCharged(model, async () => {
      const answer = await client().models.generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Hello Gemini',
      });
      expect(answer.text).toBe('Demo answer to: Hello Gemini');
      return geminiUsage(answer.usageMetadata as unknown as Record<string, unknown>);
    });
    await expectCharged(model, async () => {
      let text = '';
      let metadata: unknown;
      for await (const chunk of await client().models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Stream it',
      })) {
        text += chunk.text ?? '';
        metadata = chunk.usageMetadata ?? metadata;
      }
      expect(text).toBe('Demo answer to: Stream it');
      return geminiUsage(metadata as Record<string, unknown>);
    });
    const count = await client().models.countTokens({ model: 'gemini-2.5-flash', contents: 'abcdefgh' });
    expect(count.totalTokens).toBe(2);
    const before = await balance();
    const embedded = await client().models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['a', 'b'],
    });
    expect(embedded.embeddings).toHaveLength(2);
    expect(await balance()).toBeLessThan(before);
  });
});

describe('/openai through the simulator', () => {
  const client = () =>
    new OpenAI({ apiKey: funded.key, baseURL: `${gateway.origin}/openai/v1`, maxRetries: 0 });

  it('responses (plain and streamed), chat completions and embeddings, each charged its X-Service-Cost', async () => {
    let before = await balance();
    const { data: response, response: raw } = await client()
      .responses.create({ model: 'openai/gpt-5', input: 'Hello GPT' })
      .withResponse();
    expect(response.output_text).toBe('Demo answer to: Hello GPT');
    const cost = charged(raw.headers.get('x-service-cost'));
    expect(cost).toBeGreaterThan(0n);
    expect(await balance()).toBe(before - cost);
    const stream = await client().responses.create({ model: 'gpt-5', input: 'Stream it', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Demo answer to: Stream it');
    before = await balance();
    const { data: chat, response: chatRaw } = await client()
      .chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi chat' }],
      })
      .withResponse();
    expect(chat.choices[0]?.message.content).toBe('Demo answer to: Hi chat');
    expect(await balance()).toBe(before - charged(chatRaw.headers.get('x-service-cost')));
    const embedding = await client().embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'hi',
    });
    expect(embedding.data[0]?.embedding).toHaveLength(256);
  });
});

describe('/elevenlabs through the simulator', () => {
  const client = () =>
    new ElevenLabsClient({ apiKey: funded.key, baseUrl: `${gateway.origin}/elevenlabs`, maxRetries: 0 });

  async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<number> {
    let size = 0;
    for await (const chunk of stream) size += chunk.byteLength;
    return size;
  }

  it('speech, sound effects (the demo sound model too) and speech to text', async () => {
    const before = await balance();
    const speech = await client().textToSpeech.convert('voice1', {
      text: 'Hello there, this is speech.',
      modelId: 'eleven_multilingual_v2',
    });
    expect(await bytesOf(speech)).toBeGreaterThan(1000);
    const sound = await client().textToSoundEffects.convert({ text: 'rain on a roof', durationSeconds: 2 });
    expect(await bytesOf(sound)).toBeGreaterThan(1000);
    // The SDK takes only ElevenLabs' own sound model id; the demo model is named in the raw body.
    const demo = await fetch(`${gateway.origin}/elevenlabs/v1/sound-generation`, {
      method: 'POST',
      headers: { 'xi-api-key': funded.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'rain', duration_seconds: 3, model_id: 'demo/sound' }),
    });
    expect(demo.status).toBe(200);
    expect(demo.headers.get('content-type')).toBe('audio/mpeg');
    expect((await demo.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const transcript = await client().speechToText.convert({
      modelId: 'scribe_v1',
      file: new Blob([mp3OfSeconds(2)], { type: 'audio/mpeg' }),
    });
    expect(transcript).toMatchObject({ text: expect.stringContaining('Demo transcription') });
    expect(await balance()).toBeLessThan(before);
  });
});
