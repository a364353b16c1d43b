/**
 * Runway as a gateway media provider: text-to-video tasks (submit, poll, download).
 *
 * Images are not offered: Runway's `text_to_image` is a task to poll like video, while the
 * gateway's ImageAdapter is one request and one answer; and of the catalogue's Runway image
 * models, `gen4_image_turbo` requires reference images. See the report of the media adapters.
 */
import type { MediaProviderAdapter } from '../media-types.ts';
import { isRunwayKeyRejection, runwayErrorMessage } from './error-message.ts';
import { runwayVideo } from './video.ts';

export { isRunwayKeyRejection, runwayErrorMessage } from './error-message.ts';
export { runwayVideo } from './video.ts';

/** The Runway media provider adapter. */
export const runwayMediaAdapter: MediaProviderAdapter = {
  video: runwayVideo,
  errorMessage: runwayErrorMessage,
  isCredentialRejection: isRunwayKeyRejection,
};
