import { crc32 } from 'node:zlib';
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamTarget } from '../../../shared/src/providers/chat-types.ts';
import { groqMediaAdapter } from '../../../shared/src/providers/groq/media.ts';
import type { MediaHttpRequest, MultipartBody } from '../../../shared/src/providers/media-types.ts';
import { openaiMediaAdapter } from '../../../shared/src/providers/openai/media/index.ts';
import { MP3_FRAME_BYTES, MP3_FRAME_SECONDS, PNG_SIGNATURE } from '../../fakes/media-files.ts';
import { fakeSpeechFrames } from '../../fakes/openai-media-audio.ts';
import { type OpenAIMediaUpstream, startOpenAIMediaUpstream } from '../../fakes/openai-media-upstream.ts';
import { DEFAULT_RENDER_FAILURE, FAIL_RENDER_TRIGGER } from '../../fakes/openai-media-videos.ts';
import { DEFAULT_FAKE_KEY } from '../../fakes/openai-upstream.ts';

const { images, speech, transcription, video } = openaiMediaAdapter;
if (!images || !speech || !transcription || !video) throw new Error('OpenAI has every media capability');

let upstream: OpenAIMediaUpstream;
beforeAll(async () => {
  upstream = await startOpenAIMediaUpstream({ completeAfterPolls: 3 });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

const target = (nativeModel: string, apiKey = DEFAULT_FAKE_KEY): UpstreamTarget => ({
  baseUrl: upstream.url,
  apiKey,
  nativeModel,
});

function formData(body: MultipartBody): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body.fields)) form.append(name, value);
  const { file } = body;
  if (file)
    form.append(file.field, new Blob([new Uint8Array(file.data)], { type: file.contentType }), file.fileName);
  return form;
}

/** Sends what an adapter built, as the worker does: JSON text as is, multipart through FormData. */
function send(request: MediaHttpRequest): Promise<Response> {
  const body = typeof request.body === 'object' ? formData(request.body) : request.body;
  return fetch(request.url, { method: request.method, headers: request.headers, body });
}

async function okJson(request: MediaHttpRequest): Promise<unknown> {
  const response = await send(request);
  expect(response.status).toBe(200);
  return response.json();
}

/** Checks the PNG signature and the IHDR chunk (length, type, CRC) and returns the dimensions. */
function pngDimensions(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  expect(png.readUInt32BE(8)).toBe(13);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  expect(png.readUInt32BE(29)).toBe(crc32(png.subarray(12, 29)));
  expect(png.toString('latin1', png.length - 8, png.length - 4)).toBe('IEND');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('OpenAI images against the fake', () => {
  it('gpt-image-1: n images as valid PNGs of the mapped size, with token usage, deterministic per prompt', async () => {
    const request = { prompt: 'A lighthouse at dusk', n: 2, aspect_ratio: '16:9', quality: 'low' as const };
    const result = images.response(await okJson(images.request(request, target('gpt-image-1'))), request);
    expect(result.images).toHaveLength(2);
    const pngs = result.images.map((image) => Buffer.from(image.base64 ?? '', 'base64'));
    for (const png of pngs) expect(pngDimensions(png)).toEqual({ width: 24, height: 16 }); // 1536x1024 / 64
    expect(pngs[0]?.equals(pngs[1] ?? Buffer.alloc(0))).toBe(false);
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 2 * 408 });
    const again = images.response(await okJson(images.request(request, target('gpt-image-1'))), request);
    expect(again.images[0]?.base64).toBe(result.images[0]?.base64);
  });

  it('dall-e-3: one base64 PNG with its revised prompt', async () => {
    const request = { prompt: 'A red fox', n: 1, size: '1024x1792', quality: 'high' as const };
    const result = images.response(await okJson(images.request(request, target('dall-e-3'))), request);
    expect(result.images[0]?.revisedPrompt).toBe('A detailed picture of A red fox');
    expect(pngDimensions(Buffer.from(result.images[0]?.base64 ?? '', 'base64'))).toEqual({
      width: 16,
      height: 28,
    });
    expect(JSON.parse(upstream.requests.at(-1)?.body.toString() ?? '{}')).toMatchObject({
      quality: 'hd',
      response_format: 'b64_json',
    });
  });
});

describe('OpenAI speech against the fake', () => {
  it('answers MP3 frames whose count follows the input length', async () => {
    const say = async (input: string) => {
      const request = { input, voice: 'coral', instructions: 'Cheerful.' };
      const response = await send(speech.request(request, target('gpt-4o-mini-tts')));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      return Buffer.from(await response.arrayBuffer());
    };
    const short = await say('Hello.');
    const long = await say('Hello. '.repeat(40));
    for (const mp3 of [short, long]) expect([mp3[0], mp3[1]]).toEqual([0xff, 0xfb]);
    expect(long.length).toBe(fakeSpeechFrames('Hello. '.repeat(40)) * MP3_FRAME_BYTES);
    expect(long.length).toBeGreaterThan(short.length * 10);
    const metadata = await parseBuffer(long, { mimeType: 'audio/mpeg' });
    expect(metadata.format.codec).toBe('MPEG 1 Layer 3');
    expect(metadata.format.duration).toBeCloseTo(
      fakeSpeechFrames('Hello. '.repeat(40)) * MP3_FRAME_SECONDS,
      1,
    );
  });
});

const clip = (bytes: number, fileName = 'clip.mp3', contentType = 'audio/mpeg') => ({
  audio: { fileName, contentType, data: new Uint8Array(bytes) },
});

describe('OpenAI and Groq transcription against the fake', () => {
  it('whisper-1: duration, language code and word timings from verbose_json', async () => {
    const request = { ...clip(48_000), language: 'fr', prompt: 'Bonjour' };
    const result = transcription.response(await okJson(transcription.request(request, target('whisper-1'))));
    expect(result.duration).toBe(3);
    expect(result.language).toBe('fr');
    expect(result.words.length).toBeGreaterThan(3);
    expect(result.words[0]).toMatchObject({ word: 'the', start: 0 });
    expect(result.text.startsWith('The quick brown')).toBe(true);
  });

  it('gpt-4o-transcribe: text only, from json; a name without extension gets one from the content type', async () => {
    const request = clip(16_000, 'blob', 'audio/wav');
    const result = transcription.response(
      await okJson(transcription.request(request, target('gpt-4o-transcribe'))),
    );
    expect(result).toMatchObject({ language: null, duration: null, words: [] });
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('Groq whisper-large-v3 with its own key, through the same fake format', async () => {
    const groq = await startOpenAIMediaUpstream({ apiKey: 'gsk_test_key' });
    try {
      const groqTarget = { baseUrl: groq.url, apiKey: 'gsk_test_key', nativeModel: 'whisper-large-v3' };
      const adapter = groqMediaAdapter.transcription;
      if (adapter === undefined) throw new Error('Groq has transcription');
      const response = await send(adapter.request(clip(32_000), groqTarget));
      expect(response.status).toBe(200);
      expect(adapter.response(await response.json())).toMatchObject({ duration: 2, language: 'en' });
    } finally {
      await groq.close();
    }
  });
});

describe('OpenAI video against the fake', () => {
  it('submits, polls through in_progress to completed, and downloads an MP4', async () => {
    const submitted = await okJson(
      video.submit({ prompt: 'Waves', duration: 4, aspect_ratio: '9:16' }, target('sora-2')),
    );
    const { operationId } = video.submitted(submitted);
    const poll = async () => video.polled(await okJson(video.poll(operationId, target('sora-2'))));
    const early = await send(video.download(`/videos/${operationId}/content`, target('sora-2')));
    expect(early.status).toBe(404);
    expect(await poll()).toEqual({ state: 'running', progress: 33 });
    expect(await poll()).toEqual({ state: 'running', progress: 67 });
    const done = await poll();
    if (done.state !== 'succeeded') throw new Error(`expected succeeded, got ${done.state}`);
    const response = await send(video.download(done.downloadUrl, target('sora-2')));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    const mp4 = Buffer.from(await response.arrayBuffer());
    expect(mp4.toString('latin1', 4, 12)).toBe('ftypisom');
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${DEFAULT_FAKE_KEY}`);
  });

  it('ends failed with the error message for a failing render', async () => {
    const request = { prompt: `Storm ${FAIL_RENDER_TRIGGER}`, duration: 8, resolution: '1080p' as const };
    const { operationId } = video.submitted(await okJson(video.submit(request, target('sora-2-pro'))));
    const states = [];
    for (let i = 0; i < 3; i += 1)
      states.push(video.polled(await okJson(video.poll(operationId, target('sora-2-pro')))));
    expect(states.at(-1)).toEqual({ state: 'failed', message: DEFAULT_RENDER_FAILURE });
  });
});

describe('OpenAI media errors against the fake', () => {
  it('401 on a wrong key: a credential rejection with a sanitised message', async () => {
    const response = await send(
      images.request({ prompt: 'x', n: 1 }, target('gpt-image-1', 'sk-wrong-key-1234')),
    );
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(openaiMediaAdapter.isCredentialRejection?.(401, text)).toBe(true);
    expect(openaiMediaAdapter.errorMessage(401, text)).toBe(
      'Incorrect API key provided: [redacted]. You can find your API key at [url]',
    );
  });

  it('scripted 429 (with Retry-After), 500 and 400 carry OpenAI error bodies', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    upstream.script.next({ kind: 'status', status: 500 });
    upstream.script.next({ kind: 'status', status: 400 });
    const request = speech.request({ input: 'Hi', voice: 'alloy' }, target('tts-1'));
    const limited = await send(request);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(openaiMediaAdapter.errorMessage(429, await limited.text())).toContain('Rate limit reached');
    const failed = await send(request);
    expect(failed.status).toBe(500);
    expect(openaiMediaAdapter.errorMessage(500, await failed.text())).toContain('The server had an error');
    expect((await send(request)).status).toBe(400);
    expect((await send(request)).status).toBe(200);
  });

  it('404 model_not_found and 404 for an unknown video id', async () => {
    const missing = await send(images.request({ prompt: 'x', n: 1 }, target('missing-image-model')));
    expect(missing.status).toBe(404);
    expect(openaiMediaAdapter.errorMessage(404, await missing.text())).toContain('does not exist');
    expect((await send(video.poll('video_unknown', target('sora-2')))).status).toBe(404);
  });

  it('a cut connection mid-download fails the read', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const response = await send(
      speech.request({ input: 'Hello. '.repeat(20), voice: 'alloy' }, target('tts-1')),
    );
    await expect(response.arrayBuffer()).rejects.toThrow();
  });

  it('the fake holds requests to the documented format (what a faulty adapter would send)', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${upstream.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_FAKE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const gptFormat = await post('/images/generations', {
      model: 'gpt-image-1',
      prompt: 'x',
      response_format: 'b64_json',
    });
    expect(gptFormat.status).toBe(400);
    expect(openaiMediaAdapter.errorMessage(400, await gptFormat.text())).toBe(
      "Unknown parameter: 'response_format'.",
    );
    expect((await post('/images/generations', { model: 'dall-e-3', prompt: 'x', n: 2 })).status).toBe(400);
    expect(
      (await post('/audio/speech', { model: 'tts-1', input: 'x', voice: 'alloy', instructions: 'y' })).status,
    ).toBe(400);
    const form = formData({
      kind: 'multipart',
      fields: { model: 'gpt-4o-transcribe', response_format: 'verbose_json' },
    });
    form.append('file', new Blob([new Uint8Array(10)], { type: 'audio/mpeg' }), 'a.mp3');
    const transcribe = await fetch(`${upstream.url}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEFAULT_FAKE_KEY}` },
      body: form,
    });
    expect(transcribe.status).toBe(400);
  });

  it('serves a DALL·E URL answer (its default format) as a PNG', async () => {
    const response = await fetch(`${upstream.url}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEFAULT_FAKE_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'dall-e-2', prompt: 'A cat', size: '256x256' }),
    });
    const request = { prompt: 'A cat', n: 1 };
    const [image] = images.response(await response.json(), request).images;
    const png = await fetch(image?.url ?? '');
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(pngDimensions(Buffer.from(await png.arrayBuffer()))).toEqual({ width: 4, height: 4 });
  });
});
