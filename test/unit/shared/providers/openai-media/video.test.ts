import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import type { MultipartBody, VideoRequest } from '../../../../../shared/src/providers/media-types.ts';
import { openaiVideoAdapter, toVideoFields } from '../../../../../shared/src/providers/openai/media/video.ts';
import { rejection, soraVideo, target } from './fixtures.ts';

const film = (extra: Partial<VideoRequest> = {}): VideoRequest => ({
  prompt: 'A cat on a piano',
  duration: 8,
  ...extra,
});
const ID = 'video_68d7512d07848190b3e45da0ecbebcde004da08e1e0678d5';

describe('OpenAI video submit', () => {
  it('builds a multipart POST to <base>/videos with seconds as a string and the default 16:9 720p size', () => {
    const request = openaiVideoAdapter.submit(film(), target('sora-2'));
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/videos');
    expect(request.headers).toEqual({ authorization: 'Bearer sk-test', accept: 'application/json' });
    expect(request.body).toEqual({
      kind: 'multipart',
      fields: { model: 'sora-2', prompt: 'A cat on a piano', seconds: '8', size: '1280x720' },
    } satisfies MultipartBody);
  });

  it('maps aspect ratio and resolution to Sora sizes', () => {
    const size = (extra: Partial<VideoRequest>, model = 'sora-2-pro') =>
      toVideoFields(film(extra), model).size;
    expect(size({ aspect_ratio: '16:9', resolution: '720p' }, 'sora-2')).toBe('1280x720');
    expect(size({ aspect_ratio: '9:16' }, 'sora-2')).toBe('720x1280');
    expect(size({ aspect_ratio: '16:9', resolution: '1080p' })).toBe('1792x1024');
    expect(size({ aspect_ratio: '9:16', resolution: '1080p' })).toBe('1024x1792');
    expect(size({ resolution: '1080p' }, 'sora-2-pro-2025-10-06')).toBe('1792x1024');
  });

  it('accepts 4, 8 and 12 seconds and refuses anything else, naming duration', () => {
    for (const duration of [4, 8, 12])
      expect(toVideoFields(film({ duration }), 'sora-2').seconds).toBe(String(duration));
    for (const duration of [5, 10, 16, 0]) {
      const error = rejection(() => toVideoFields(film({ duration }), 'sora-2'));
      expect(error.param).toBe('duration');
      expect(error.message).toContain('4, 8, 12');
    }
  });

  it('refuses 1:1 and refuses 1080p on sora-2', () => {
    expect(rejection(() => toVideoFields(film({ aspect_ratio: '1:1' }), 'sora-2-pro')).param).toBe(
      'aspect_ratio',
    );
    const error = rejection(() => toVideoFields(film({ resolution: '1080p' }), 'sora-2'));
    expect(error.param).toBe('resolution');
    expect(error.message).toContain('sora-2-pro');
  });

  it('reads the job id from the create answer', () => {
    expect(openaiVideoAdapter.submitted(soraVideo('queued'))).toEqual({ operationId: ID });
    expect(() => openaiVideoAdapter.submitted({ id: ID })).toThrow(UpstreamProtocolError);
  });
});

describe('OpenAI video poll', () => {
  it('polls GET <base>/videos/{id} with the Bearer key', () => {
    const request = openaiVideoAdapter.poll(ID, target('sora-2'));
    expect(request).toEqual({
      method: 'GET',
      url: `https://api.openai.com/v1/videos/${ID}`,
      headers: { authorization: 'Bearer sk-test', accept: 'application/json' },
    });
    expect(openaiVideoAdapter.poll('a/b', target('sora-2')).url).toBe(
      'https://api.openai.com/v1/videos/a%2Fb',
    );
  });

  it('maps queued and in_progress to running with the progress', () => {
    expect(openaiVideoAdapter.polled(soraVideo('queued'))).toEqual({ state: 'running', progress: 0 });
    expect(openaiVideoAdapter.polled(soraVideo('in_progress', { progress: 33 }))).toEqual({
      state: 'running',
      progress: 33,
    });
    expect(openaiVideoAdapter.polled(soraVideo('in_progress', { progress: null }))).toEqual({
      state: 'running',
      progress: null,
    });
    expect(openaiVideoAdapter.polled(soraVideo('in_progress', { progress: 140 }))).toEqual({
      state: 'running',
      progress: 100,
    });
  });

  it('maps completed to the content path, which download resolves with the Bearer key', () => {
    const state = openaiVideoAdapter.polled(soraVideo('completed', { progress: 100 }));
    expect(state).toEqual({ state: 'succeeded', downloadUrl: `/videos/${ID}/content` });
    if (state.state !== 'succeeded') throw new Error('expected succeeded');
    expect(openaiVideoAdapter.download(state.downloadUrl, target('sora-2', 'http://127.0.0.1:9/v1'))).toEqual(
      {
        method: 'GET',
        url: `http://127.0.0.1:9/v1/videos/${ID}/content`,
        headers: { authorization: 'Bearer sk-test', accept: 'application/binary' },
      },
    );
  });

  it('never sends the key to an address that is not our content path', () => {
    for (const url of ['https://evil.example/x.mp4', '/videos/a/b/content', '/files/x/content']) {
      expect(() => openaiVideoAdapter.download(url, target('sora-2'))).toThrow(UpstreamProtocolError);
    }
  });

  it('maps failed to its error message, sanitised, or a generic one', () => {
    const error = {
      code: 'moderation_blocked',
      message: 'Your request was blocked by our moderation system.',
    };
    expect(openaiVideoAdapter.polled(soraVideo('failed', { error }))).toEqual({
      state: 'failed',
      message: 'Your request was blocked by our moderation system.',
    });
    const leaky = { code: 'x', message: 'Upload to https://internal.example/bucket failed' };
    expect(openaiVideoAdapter.polled(soraVideo('failed', { error: leaky }))).toEqual({
      state: 'failed',
      message: 'Upload to [url] failed',
    });
    expect(openaiVideoAdapter.polled(soraVideo('failed'))).toEqual({
      state: 'failed',
      message: 'OpenAI reported the render as failed.',
    });
  });

  it('throws UpstreamProtocolError on undocumented states and shapes', () => {
    for (const json of [soraVideo('cancelled'), { ...soraVideo('queued'), object: 'job' }, {}, null]) {
      expect(() => openaiVideoAdapter.polled(json)).toThrow(UpstreamProtocolError);
    }
  });
});
