/**
 * The demo provider's video: an offline, deterministic SIMULATOR. The result is a real, playable
 * H.264 MP4 (the committed 320x180 asset "DEMO VIDEO / simulated offline render", re-timed by
 * `demoMp4` to the requested duration); the prompt, aspect ratio and resolution do not change it.
 *
 * Rendering is simulated for polling: a render of S seconds takes
 * DEMO_VIDEO_RENDER_MS_PER_SECOND × S milliseconds, with progress growing linearly until then;
 * `progress(elapsedMs, request)` tells the state at a given time since submission.
 */
import { demoMp4 } from '../../../media/builders/mp4.ts';
import { UnsupportedFeatureError } from '../../chat-types.ts';
import type { VideoRequest } from '../../media-types.ts';

export const DEMO_VIDEO_MIN_SECONDS = 1;
export const DEMO_VIDEO_MAX_SECONDS = 60;
/** Simulated render time per second of video. */
export const DEMO_VIDEO_RENDER_MS_PER_SECOND = 100;

export type DemoVideoState = { state: 'running'; progress: number } | { state: 'succeeded' };

function secondsOf(request: Pick<VideoRequest, 'duration'>): number {
  const seconds = request.duration;
  if (!Number.isInteger(seconds) || seconds < DEMO_VIDEO_MIN_SECONDS || seconds > DEMO_VIDEO_MAX_SECONDS) {
    throw new UnsupportedFeatureError(
      'duration',
      `The demo video model renders ${DEMO_VIDEO_MIN_SECONDS} to ${DEMO_VIDEO_MAX_SECONDS} whole seconds.`,
    );
  }
  return seconds;
}

/** The finished video: MP4 bytes (`video/mp4`) lasting `seconds`. */
function render(request: VideoRequest): { mp4: Uint8Array; seconds: number } {
  const seconds = secondsOf(request);
  return { mp4: demoMp4(seconds), seconds };
}

/** Simulated render time of a request, in milliseconds. */
export function demoVideoRenderMs(request: Pick<VideoRequest, 'duration'>): number {
  return secondsOf(request) * DEMO_VIDEO_RENDER_MS_PER_SECOND;
}

/** The simulated state `elapsedMs` after submission: running (0 to 99 %) then succeeded. */
function progress(elapsedMs: number, request: Pick<VideoRequest, 'duration'>): DemoVideoState {
  const total = demoVideoRenderMs(request);
  if (elapsedMs >= total) return { state: 'succeeded' };
  const percent = Math.floor((Math.max(0, elapsedMs) * 100) / total);
  return { state: 'running', progress: Math.min(99, percent) };
}

/** The demo simulator's video capability. */
export const demoVideo = { render, progress };
