/**
 * The demo provider's video: an offline, deterministic SIMULATOR. The result is a real, playable
 * H.264 MP4 (the committed 320x180 asset "DEMO VIDEO / simulated offline render", re-timed by
 * `demoMp4` to the requested duration); the prompt, aspect ratio and resolution do not change it.
 *
 * Rendering is simulated for polling: a render takes a set time (the worker's
 * `DEMO_VIDEO_RENDER_MS`), with progress growing linearly until then; `progress(elapsedMs,
 * renderMs)` tells the state at a given time since submission.
 */
import { demoMp4 } from '../../../file-formats/builders/mp4.ts';
import { UnsupportedFeatureError } from '../../chat-types.ts';
import type { VideoRequest } from '../../media-types.ts';

export const DEMO_VIDEO_MIN_SECONDS = 1;
export const DEMO_VIDEO_MAX_SECONDS = 60;
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

/**
 * The simulated state `elapsedMs` after the submission of a render taking `renderMs`: running
 * (0 to 99 %), then succeeded.
 */
function progress(elapsedMs: number, renderMs: number): DemoVideoState {
  if (elapsedMs >= renderMs) return { state: 'succeeded' };
  const percent = Math.floor((Math.max(0, elapsedMs) * 100) / Math.max(renderMs, 1));
  return { state: 'running', progress: Math.min(99, percent) };
}

/** The demo simulator's video capability. */
export const demoVideo = { render, progress };
