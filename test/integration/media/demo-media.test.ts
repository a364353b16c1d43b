import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wavOfSeconds } from '../../../shared/src/file-formats/builders/wav.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../../helpers/listening-app.ts';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker.ts';

let t: ListeningApp;
let worker: TestWorker;
let client: OpenAI;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startListeningApp({
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, DEMO_VIDEO_RENDER_MS: '300', VIDEO_POLL_INTERVAL_MS: '100' },
  });
  worker = await startTestWorker(t.config);
  const funded = await createFundedKey(t.app, { topUp: 10_000_000 });
  key = funded.key;
  accountId = funded.accountId;
  client = new OpenAI({ apiKey: key, baseURL: `${t.origin}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await worker.close();
  await t.close();
});

// Synchronous media charges go through the group commit: write what is queued before reading.
const balance = async () => {
  await t.services.billing.flush();
  return t.services.billing.balanceOf(accountId);
};

describe('media through the demo provider and a worker', () => {
  it('generates images as base64 PNG and charges per image', async () => {
    const before = await balance();
    const result = await client.images.generate({
      model: 'demo/image',
      prompt: 'a red fox',
      n: 2,
      size: '64x64',
    });
    expect(result.data).toHaveLength(2);
    const png = Buffer.from(result.data?.[0]?.b64_json ?? '', 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const cost = (result as unknown as { service: { cost: number } }).service.cost;
    expect(Number(before - (await balance())) / 1e6).toBeCloseTo(cost, 6);
  });

  it('speaks MP3', async () => {
    const response = await client.audio.speech.create({
      model: 'demo/tts',
      voice: 'alloy',
      input: 'Hello there, this is a test.',
    });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes[0]).toBe(0xff);
    expect(Number(response.headers.get('x-service-cost'))).toBeGreaterThan(0);
  });

  it('transcribes an upload, with the duration measured from the audio', async () => {
    const file = await toFile(Buffer.from(wavOfSeconds(3)), 'speech.wav', { type: 'audio/wav' });
    const result = await client.audio.transcriptions.create({
      model: 'demo/stt',
      file,
      response_format: 'json',
    });
    expect(result.text).toContain('3.0 seconds');
    expect((result as unknown as { duration: number }).duration).toBeCloseTo(3, 1);
  });

  it('renders a video: 202, poll to completed, download (and a range), charged once on delivery', async () => {
    const before = await balance();
    const created = await fetch(`${t.origin}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo/video', prompt: 'waves', duration: 4 }),
    });
    expect(created.status).toBe(202);
    const video = (await created.json()) as { id: string; status: string };
    expect(video.status).toBe('in_progress');
    expect(await balance()).toBe(before);
    let current = await client.videos.retrieve(video.id);
    for (let i = 0; i < 100 && current.status !== 'completed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await client.videos.retrieve(video.id);
    }
    expect(current.status).toBe('completed');
    const cost = (current as unknown as { service: { cost: number } }).service.cost;
    expect(Number(before - (await balance())) / 1e6).toBeCloseTo(cost, 6);
    const content = await client.videos.downloadContent(video.id);
    const mp4 = Buffer.from(await content.arrayBuffer());
    expect(mp4.subarray(4, 8).toString()).toBe('ftyp');
    const partial = await fetch(`${t.origin}/v1/videos/${video.id}/content`, {
      headers: { authorization: `Bearer ${key}`, range: 'bytes=0-99' },
    });
    expect(partial.status).toBe(206);
    expect(Buffer.from(await partial.arrayBuffer())).toHaveLength(100);
    expect(await t.services.billing.checkLedger()).toEqual([]);
  });
});
