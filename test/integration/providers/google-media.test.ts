import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnsupportedFeatureError, type UpstreamTarget } from '../../../shared/src/providers/chat-types.ts';
import { googleMediaAdapter } from '../../../shared/src/providers/google/media/index.ts';
import type {
  ImageRequest,
  VideoPollState,
  VideoRequest,
} from '../../../shared/src/providers/media-types.ts';
import { type GoogleMediaUpstream, startGoogleMediaUpstream } from '../../fakes/google-media-upstream.ts';
import { PNG_SIGNATURE } from '../../fakes/media-files.ts';
import { decodePng } from '../../helpers/png-decode.ts';
import { bodyBytes, capability, sendMediaRequest } from '../../helpers/send-media-request.ts';

const { errorMessage, isCredentialRejection } = googleMediaAdapter;
const images = capability(googleMediaAdapter.images, 'images');
const video = capability(googleMediaAdapter.video, 'video');

const KEY = 'gk-media-test';
let upstream: GoogleMediaUpstream;
beforeAll(async () => {
  upstream = await startGoogleMediaUpstream({ apiKey: KEY, pollsUntilDone: 2 });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

const target = (nativeModel: string, apiKey = KEY): UpstreamTarget => ({
  baseUrl: upstream.url,
  apiKey,
  nativeModel,
});
const ask = (prompt: string, extra: Partial<ImageRequest> = {}): ImageRequest => ({ prompt, n: 1, ...extra });

async function generate(request: ImageRequest, model = 'imagen-4.0-generate-001') {
  const response = await sendMediaRequest(images.request(request, target(model)));
  expect(response.status).toBe(200);
  return images.response(await response.json(), request);
}

function decoded(base64: string | undefined) {
  const png = Buffer.from(base64 ?? '', 'base64');
  expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  return decodePng(png);
}

describe('Imagen against the fake Gemini API', () => {
  it('returns n real PNGs shaped by the nearest aspect ratio, deterministic from the prompt', async () => {
    const first = await generate(ask('A red kite', { n: 3, size: '1792x1024' }));
    expect(first?.images).toHaveLength(3);
    for (const image of first?.images ?? []) {
      const png = decoded(image.base64);
      expect([png.width, png.height]).toEqual([64, 36]);
      expect(png.chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    }
    const again = await generate(ask('A red kite', { n: 3, size: '1792x1024' }));
    expect(again?.images.map((image) => image.base64)).toEqual(first?.images.map((image) => image.base64));
    expect(first?.images[0]?.base64).not.toBe(first?.images[1]?.base64);
  });

  it('renders 2K on Imagen 4 Standard', async () => {
    const result = await generate(ask('A red kite', { size: '2048x2048' }));
    const png = decoded(result?.images[0]?.base64);
    expect([png.width, png.height]).toEqual([8, 8]);
    const body = JSON.parse(upstream.requests.at(-1)?.body.toString('utf8') ?? '{}');
    expect(body.parameters).toMatchObject({ sampleImageSize: '2K', aspectRatio: '1:1' });
  });

  it('delivers the unfiltered images and refuses a prompt whose every image was filtered', async () => {
    expect((await generate(ask('kite [filter-one]', { n: 3 })))?.images).toHaveLength(2);
    await expect(generate(ask('kite [filtered]', { n: 2 }))).rejects.toThrow(UnsupportedFeatureError);
  });

  it('serves Gemini image models through generateContent with token usage', async () => {
    const result = await generate(ask('A blue boat', { aspect_ratio: '21:9' }), 'gemini-2.5-flash-image');
    expect(result?.usage).toEqual({ inputTokens: 3, outputTokens: 1290 });
    const png = decoded(result?.images[0]?.base64);
    expect([png.width, png.height]).toEqual([84, 36]);
  });
});

async function pollUntilSettled(operationId: string, model: string): Promise<VideoPollState[]> {
  const states: VideoPollState[] = [];
  for (let i = 0; i < 10; i += 1) {
    const response = await sendMediaRequest(video.poll(operationId, target(model)));
    expect(response.status).toBe(200);
    const state = video.polled(await response.json());
    states.push(state);
    if (state.state !== 'running') return states;
  }
  throw new Error('the operation never settled');
}

async function submit(request: VideoRequest, model = 'veo-3.0-generate-001'): Promise<string> {
  const response = await sendMediaRequest(video.submit(request, target(model)));
  expect(response.status).toBe(200);
  return video.submitted(await response.json()).operationId;
}

describe('Veo against the fake Gemini API', () => {
  it('submits, polls until done and downloads an MP4 with the key', async () => {
    const model = 'veo-3.1-generate-preview';
    const operationId = await submit(
      { prompt: 'A fox in the snow', duration: 6, aspect_ratio: '9:16' },
      model,
    );
    expect(operationId).toMatch(/^models\/veo-3\.1-generate-preview\/operations\/\w+$/);
    const states = await pollUntilSettled(operationId, model);
    expect(states.slice(0, 2)).toEqual([
      { state: 'running', progress: null },
      { state: 'running', progress: null },
    ]);
    const done = states.at(-1);
    if (done?.state !== 'succeeded') throw new Error(`expected success, got ${JSON.stringify(done)}`);
    expect(done.downloadUrl).toContain(':download?alt=media');
    const download = video.download(done.downloadUrl, target(model));
    const response = await sendMediaRequest(download);
    expect(response.status).toBe(200);
    const mp4 = await bodyBytes(response);
    expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');
    expect(mp4.toString('latin1', 8, 12)).toBe('isom');
    expect(mp4.readUInt32BE(0)).toBeGreaterThanOrEqual(16);
    expect(upstream.requests.at(-1)?.headers['x-goog-api-key']).toBe(KEY);
  });

  it('reports a failed render and a filtered one as failed', async () => {
    const failed = await pollUntilSettled(
      await submit({ prompt: 'A fox [fail]', duration: 8 }),
      'veo-3.0-generate-001',
    );
    expect(failed.at(-1)).toEqual({
      state: 'failed',
      message: 'Veo: Video generation failed due to an internal error. Please try again.',
    });
    const filtered = await pollUntilSettled(
      await submit({ prompt: 'A fox [filtered]', duration: 8 }),
      'veo-3.0-generate-001',
    );
    expect(filtered.at(-1)).toMatchObject({
      state: 'failed',
      message: expect.stringContaining('safety filters'),
    });
  });

  it('refuses what a model cannot render before calling it', () => {
    const before = upstream.requests.length;
    expect(() => video.submit({ prompt: 'x', duration: 5 }, target('veo-3.0-generate-001'))).toThrow(
      UnsupportedFeatureError,
    );
    expect(upstream.requests.length).toBe(before);
  });
});

describe('Google media errors over HTTP', () => {
  it('answers a wrong key 400 API_KEY_INVALID, read as a credential rejection', async () => {
    const response = await sendMediaRequest(
      images.request(ask('kite'), target('imagen-4.0-generate-001', 'wrong')),
    );
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(isCredentialRejection?.(400, text)).toBe(true);
    expect(errorMessage(400, text)).toBe(
      'Gemini INVALID_ARGUMENT: API key not valid. Please pass a valid API key.',
    );
  });

  it('answers scripted statuses with Google error bodies', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const limited = await sendMediaRequest(video.poll('operations/anything', target('veo-3.0-generate-001')));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    const text = await limited.text();
    expect(errorMessage(429, text)).toMatch(/^Gemini RESOURCE_EXHAUSTED: You exceeded your current quota/);
    expect(isCredentialRejection?.(429, text)).toBe(false);
    upstream.script.next({ kind: 'status', status: 503 });
    const busy = await sendMediaRequest(images.request(ask('kite'), target('imagen-4.0-fast-generate-001')));
    expect(errorMessage(503, await busy.text())).toBe(
      'Gemini UNAVAILABLE: The model is overloaded. Please try again later.',
    );
  });

  it('answers unknown models 404 and cuts a scripted download mid-way', async () => {
    const missing = await sendMediaRequest(images.request(ask('kite'), target('missing-imagen')));
    expect(missing.status).toBe(404);
    expect(errorMessage(404, await missing.text())).toMatch(
      /^Gemini NOT_FOUND: models\/missing-imagen is not found/,
    );
    const operationId = await submit({ prompt: 'A hare', duration: 4 });
    const done = (await pollUntilSettled(operationId, 'veo-3.0-generate-001')).at(-1);
    if (done?.state !== 'succeeded') throw new Error('expected success');
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const cut = await sendMediaRequest(video.download(done.downloadUrl, target('veo-3.0-generate-001')));
    await expect(cut.arrayBuffer()).rejects.toThrow();
  });
});
