import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import { demoMedia, demoVideo } from '../../../../../../shared/src/providers/demo/media/index.ts';

describe('demo video (simulator)', () => {
  it('renders an MP4 that starts with ftyp and lasts the requested seconds', async () => {
    for (const duration of [4, 8]) {
      const { mp4, seconds } = demoVideo.render({ prompt: 'waves', duration, aspect_ratio: '16:9' });
      expect(seconds).toBe(duration);
      expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');
      const metadata = await parseBuffer(mp4, 'video/mp4', { duration: true });
      expect(metadata.format.hasVideo).toBe(true);
      expect(metadata.format.trackInfo[0]?.duration).toBeCloseTo(duration, 6);
    }
  });

  it('is deterministic', () => {
    const request = { prompt: 'a cat', duration: 5 };
    expect(demoMedia.video.render(request).mp4).toEqual(demoVideo.render(request).mp4);
  });

  it('simulates render progress for polling: 0 to 99 % until the render time, then succeeded', () => {
    const total = 800;
    expect(demoVideo.progress(-5, total)).toEqual({ state: 'running', progress: 0 });
    expect(demoVideo.progress(0, total)).toEqual({ state: 'running', progress: 0 });
    expect(demoVideo.progress(total / 2, total)).toEqual({ state: 'running', progress: 50 });
    expect(demoVideo.progress(total - 1, total)).toEqual({ state: 'running', progress: 99 });
    expect(demoVideo.progress(total, total)).toEqual({ state: 'succeeded' });
    // A render time of 0 succeeds at once; a clock that went back stays at 0 %.
    expect(demoVideo.progress(0, 0)).toEqual({ state: 'succeeded' });
    expect(demoVideo.progress(-5, 0)).toEqual({ state: 'running', progress: 0 });
  });

  it('refuses durations that are not whole seconds from 1 to 60', () => {
    for (const duration of [0, 61, 2.5, Number.NaN]) {
      expect(() => demoVideo.render({ prompt: 'p', duration })).toThrow(UnsupportedFeatureError);
    }
  });
});
