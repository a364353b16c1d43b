import { describe, expect, it } from 'vitest';
import {
  UnsupportedFeatureError,
  UpstreamProtocolError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { googleMediaAdapter } from '../../../../../shared/src/providers/google/media/index.ts';
import type { VideoRequest } from '../../../../../shared/src/providers/media-types.ts';

const { video } = googleMediaAdapter;
if (!video) throw new Error('Google has a video capability');

const BASE = 'https://generativelanguage.googleapis.com';
const target = (nativeModel = 'veo-3.0-generate-001') => ({
  baseUrl: BASE,
  apiKey: 'AIza-test',
  nativeModel,
});
const render = (extra: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'A fox in the snow',
  duration: 8,
  ...extra,
});

function parametersOf(request: VideoRequest, model?: string): unknown {
  const built = video?.submit(request, target(model));
  return (JSON.parse(built?.body as string) as { parameters: unknown }).parameters;
}

function refusedParam(request: VideoRequest, model?: string): string | null {
  try {
    parametersOf(request, model);
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    return (err as UnsupportedFeatureError).param;
  }
  throw new Error('expected UnsupportedFeatureError');
}

describe('Veo submit', () => {
  it('posts :predictLongRunning with the prompt and the parameters', () => {
    const built = video.submit(render({ aspect_ratio: '9:16', resolution: '720p' }), target());
    expect(built.method).toBe('POST');
    expect(built.url).toBe(`${BASE}/v1beta/models/veo-3.0-generate-001:predictLongRunning`);
    expect(built.headers['x-goog-api-key']).toBe('AIza-test');
    expect(JSON.parse(built.body as string)).toEqual({
      instances: [{ prompt: 'A fox in the snow' }],
      parameters: { durationSeconds: 8, aspectRatio: '9:16', resolution: '720p' },
    });
  });

  it.each([
    ['veo-3.1-generate-preview', [4, 6, 8], [5, 10]],
    ['veo-3.0-generate-001', [4, 6, 8], [5, 7]],
    ['veo-3.0-fast-generate-001', [4, 6, 8], [2]],
    ['veo-2.0-generate-001', [5, 6, 8], [4, 7]],
  ])('%s renders %j seconds and refuses %j', (model, allowed, refused) => {
    for (const duration of allowed)
      expect(parametersOf(render({ duration }), model)).toMatchObject({ durationSeconds: duration });
    for (const duration of refused) expect(refusedParam(render({ duration }), model)).toBe('duration');
  });

  it('applies each family 1080p rule', () => {
    expect(parametersOf(render({ resolution: '1080p' }), 'veo-3.1-generate-preview')).toMatchObject({
      resolution: '1080p',
    });
    expect(refusedParam(render({ resolution: '1080p', duration: 6 }), 'veo-3.1-generate-preview')).toBe(
      'resolution',
    );
    expect(refusedParam(render({ resolution: '1080p', aspect_ratio: '9:16' }))).toBe('resolution');
    expect(parametersOf(render({ resolution: '1080p', aspect_ratio: '16:9' }))).toMatchObject({
      resolution: '1080p',
    });
    expect(refusedParam(render({ resolution: '1080p' }), 'veo-2.0-generate-001')).toBe('resolution');
    expect(parametersOf(render({ resolution: '720p' }), 'veo-2.0-generate-001')).toEqual({
      durationSeconds: 8,
    });
  });

  it('refuses square video and fractional durations on every model', () => {
    expect(refusedParam(render({ aspect_ratio: '1:1' }), 'veo-9-experimental')).toBe('aspect_ratio');
    expect(refusedParam(render({ duration: 4.5 }), 'veo-9-experimental')).toBe('duration');
    expect(parametersOf(render({ duration: 12 }), 'veo-9-experimental')).toEqual({ durationSeconds: 12 });
  });
});

describe('Veo operation', () => {
  const name = 'models/veo-3.0-generate-001/operations/abc123';

  it('takes the operation name and polls it under v1beta', () => {
    expect(video.submitted({ name })).toEqual({ operationId: name });
    expect(video.poll(name, target())).toEqual({
      method: 'GET',
      url: `${BASE}/v1beta/${name}`,
      headers: { 'x-goog-api-key': 'AIza-test', accept: 'application/json' },
    });
    expect(() => video.submitted({})).toThrow(UpstreamProtocolError);
    expect(() => video.submitted({ name: '../../files/x' })).toThrow(UpstreamProtocolError);
    expect(() => video.poll('operations/../../x', target())).toThrow(UpstreamProtocolError);
  });

  it('reads running, succeeded, failed and filtered operations', () => {
    expect(video.polled({ name })).toEqual({ state: 'running', progress: null });
    expect(video.polled({ name, done: false, metadata: {} })).toEqual({ state: 'running', progress: null });
    const uri = `${BASE}/v1beta/files/abc:download?alt=media`;
    const done = {
      name,
      done: true,
      response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } },
    };
    expect(video.polled(done)).toEqual({ state: 'succeeded', downloadUrl: uri });
    const failed = video.polled({
      name,
      done: true,
      error: { code: 13, message: 'Failed, key AIzaSyA1234567890abcdef' },
    });
    expect(failed).toEqual({ state: 'failed', message: 'Veo: Failed, key [redacted]' });
    const filtered = video.polled({
      name,
      done: true,
      response: {
        generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['Audio issue.'] },
      },
    });
    expect(filtered).toEqual({
      state: 'failed',
      message: "Veo's safety filters removed the video: Audio issue.",
    });
  });

  it('rejects undocumented operations', () => {
    expect(() => video.polled({ done: 'yes' })).toThrow(UpstreamProtocolError);
    expect(() => video.polled({ name, done: true, response: {} })).toThrow(UpstreamProtocolError);
  });

  it('downloads with the key, keeping ?alt=media, only from the API origin', () => {
    const uri = `${BASE}/v1beta/files/abc:download?alt=media`;
    expect(video.download(uri, target())).toEqual({
      method: 'GET',
      url: uri,
      headers: { 'x-goog-api-key': 'AIza-test' },
    });
    expect(() => video.download('https://evil.example/files/abc', target())).toThrow(UpstreamProtocolError);
  });
});

describe('Google media errors', () => {
  it('reads errors as Gemini chat does', () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'API key not valid.',
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    });
    expect(googleMediaAdapter.errorMessage(400, body)).toBe('Gemini INVALID_ARGUMENT: API key not valid.');
    expect(googleMediaAdapter.isCredentialRejection?.(400, body)).toBe(true);
  });
});
