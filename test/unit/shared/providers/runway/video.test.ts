import { describe, expect, it } from 'vitest';
import {
  UnsupportedFeatureError,
  UpstreamProtocolError,
} from '../../../../../shared/src/providers/chat-types.ts';
import type { VideoRequest } from '../../../../../shared/src/providers/media-types.ts';
import { runwayMediaAdapter } from '../../../../../shared/src/providers/runway/index.ts';

const { video } = runwayMediaAdapter;
if (!video) throw new Error('Runway has a video capability');

const BASE = 'https://api.dev.runwayml.com';
const target = (nativeModel = 'veo3.1') => ({ baseUrl: BASE, apiKey: 'key_test', nativeModel });
const render = (extra: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'A fox in the snow',
  duration: 8,
  ...extra,
});
const TASK = '17f20503-6c24-4c16-946b-35dbbce2af2f';

function bodyOf(request: VideoRequest, model?: string): Record<string, unknown> {
  return JSON.parse(video?.submit(request, target(model)).body as string) as Record<string, unknown>;
}

function refusal(request: VideoRequest, model?: string): UnsupportedFeatureError {
  try {
    bodyOf(request, model);
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    return err as UnsupportedFeatureError;
  }
  throw new Error('expected UnsupportedFeatureError');
}

describe('Runway submit', () => {
  it('posts text_to_video with Bearer auth and the API version header', () => {
    const built = video.submit(render(), target());
    expect(built).toEqual({
      method: 'POST',
      url: `${BASE}/v1/text_to_video`,
      headers: {
        authorization: 'Bearer key_test',
        'x-runway-version': '2024-11-06',
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: 'veo3.1',
        promptText: 'A fox in the snow',
        ratio: '1280:720',
        duration: 8,
      }),
    });
  });

  it.each([
    [{ aspect_ratio: '9:16' }, '720:1280'],
    [{ resolution: '1080p' }, '1920:1080'],
    [{ aspect_ratio: '9:16', resolution: '1080p' }, '1080:1920'],
  ] as const)('maps %j to ratio %s', (extra, ratio) => {
    expect(bodyOf(render(extra))).toMatchObject({ ratio });
  });

  it('checks each text-to-video model durations and resolutions', () => {
    expect(bodyOf(render({ duration: 4 }), 'veo3.1_fast')).toMatchObject({
      duration: 4,
      model: 'veo3.1_fast',
    });
    expect(refusal(render({ duration: 5 }), 'veo3.1').param).toBe('duration');
    expect(refusal(render({ duration: 4 }), 'veo3').param).toBe('duration');
    expect(bodyOf(render({ duration: 10 }), 'gen4.5')).toMatchObject({ ratio: '1280:720', duration: 10 });
    expect(refusal(render({ duration: 12 }), 'gen4.5').message).toContain('2 to 10');
    expect(refusal(render({ resolution: '1080p' }), 'gen4.5').param).toBe('resolution');
    expect(refusal(render({ aspect_ratio: '1:1' })).param).toBe('aspect_ratio');
  });

  it('refuses the catalogue models that need an image or a video as input', () => {
    for (const model of ['gen4_turbo', 'gen3a_turbo', 'gen4_aleph']) {
      const error = refusal(render({ duration: 5 }), model);
      expect(error.param).toBe('model');
      expect(error.message).toContain('cannot render from a text prompt');
    }
  });

  it('refuses prompts Runway would not take', () => {
    expect(refusal(render({ prompt: 'x'.repeat(1001) })).param).toBe('prompt');
    expect(bodyOf(render({ prompt: 'x'.repeat(1000) }))).toMatchObject({ duration: 8 });
  });

  it('passes unknown models through with the generic ratio table', () => {
    expect(bodyOf(render({ duration: 7 }), 'gen5')).toEqual({
      model: 'gen5',
      promptText: 'A fox in the snow',
      ratio: '1280:720',
      duration: 7,
    });
  });
});

describe('Runway task', () => {
  it('takes the task id and polls /v1/tasks/{id}', () => {
    expect(video.submitted({ id: TASK })).toEqual({ operationId: TASK });
    expect(() => video.submitted({ task: TASK })).toThrow(UpstreamProtocolError);
    expect(() => video.submitted({ id: '../../organization' })).toThrow(UpstreamProtocolError);
    const built = video.poll(TASK, target());
    expect(built.url).toBe(`${BASE}/v1/tasks/${TASK}`);
    expect(built.method).toBe('GET');
    expect(built.headers).toMatchObject({
      authorization: 'Bearer key_test',
      'x-runway-version': '2024-11-06',
    });
    expect(() => video.poll('a/b', target())).toThrow(UpstreamProtocolError);
  });

  it('reads every task status, progress on the 0 to 100 scale', () => {
    const base = { id: TASK, createdAt: '2025-01-01T00:00:00.000Z' };
    expect(video.polled({ ...base, status: 'PENDING' })).toEqual({ state: 'running', progress: null });
    expect(video.polled({ ...base, status: 'THROTTLED' })).toEqual({ state: 'running', progress: null });
    expect(video.polled({ ...base, status: 'RUNNING', progress: 0.416 })).toEqual({
      state: 'running',
      progress: 42,
    });
    expect(video.polled({ ...base, status: 'RUNNING' })).toEqual({ state: 'running', progress: null });
    const output = ['https://dnznrvs05pmza.cloudfront.net/out.mp4?_jwt=abc'];
    expect(video.polled({ ...base, status: 'SUCCEEDED', output })).toEqual({
      state: 'succeeded',
      downloadUrl: output[0],
    });
    expect(
      video.polled({
        ...base,
        status: 'FAILED',
        failure: 'Flagged by moderation.',
        failureCode: 'SAFETY.INPUT.TEXT',
      }),
    ).toEqual({
      state: 'failed',
      message: 'Runway: Flagged by moderation. (SAFETY.INPUT.TEXT)',
    });
    expect(video.polled({ ...base, status: 'FAILED' })).toEqual({
      state: 'failed',
      message: 'Runway: the task failed.',
    });
    expect(video.polled({ ...base, status: 'CANCELLED' })).toEqual({
      state: 'failed',
      message: 'Runway: the task was cancelled.',
    });
  });

  it('rejects undocumented tasks', () => {
    expect(() => video.polled({ id: TASK, status: 'DONE' })).toThrow(UpstreamProtocolError);
    expect(() => video.polled({ id: TASK, status: 'SUCCEEDED', output: [] })).toThrow(UpstreamProtocolError);
    expect(() => video.polled({ id: TASK, status: 'RUNNING', progress: 3 })).toThrow(UpstreamProtocolError);
  });

  it('downloads the signed output URL without the key', () => {
    const url = 'https://dnznrvs05pmza.cloudfront.net/out.mp4?_jwt=abc';
    const built = video.download(url, target());
    expect(built).toEqual({ method: 'GET', url, headers: { accept: 'video/mp4' } });
    expect(JSON.stringify(built)).not.toContain('key_test');
  });
});

describe('Runway errors', () => {
  const { errorMessage, isCredentialRejection } = runwayMediaAdapter;

  it('reads {error} and the first validation issue', () => {
    expect(errorMessage(401, JSON.stringify({ error: 'Invalid API key.' }))).toBe(
      'Runway HTTP 401 invalid API key: Invalid API key.',
    );
    const issues = JSON.stringify({
      error: 'Validation of body failed',
      issues: [{ path: ['ratio'], message: 'Invalid enum value' }],
    });
    expect(errorMessage(400, issues)).toBe(
      'Runway HTTP 400 invalid request: Validation of body failed (ratio: Invalid enum value)',
    );
  });

  it('never leaks keys, URLs or raw bodies', () => {
    const body = JSON.stringify({
      error: `Key key_${'ab12'.repeat(16)} refused at https://api.dev.runwayml.com/v1`,
    });
    const message = errorMessage(401, body);
    expect(message).not.toContain('ab12');
    expect(message).not.toContain('runwayml.com');
    expect(errorMessage(503, '<html>upstream connect error</html>')).toBe('Runway HTTP 503 shedding load');
    expect(errorMessage(418, '{}')).toBe('Runway HTTP 418');
  });

  it('treats 401 and 403 as the gateway credentials being refused', () => {
    expect(isCredentialRejection?.(401, '{}')).toBe(true);
    expect(isCredentialRejection?.(403, '{}')).toBe(true);
    expect(isCredentialRejection?.(400, '{}')).toBe(false);
  });
});
