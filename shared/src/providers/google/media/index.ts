/**
 * Google's media models through the Gemini API (generativelanguage, API-key auth) as a gateway
 * media provider: images (Imagen `:predict`, Gemini image models `:generateContent`) and video
 * (Veo `:predictLongRunning` and operation polling). Errors read as for Gemini chat.
 */
import type { MediaProviderAdapter } from '../../media-types.ts';
import { googleErrorMessage, isGoogleKeyRejection } from '../error-message.ts';
import { googleImages } from './images.ts';
import { googleVideo } from './veo.ts';

export { googleImages } from './images.ts';
export { googleVideo } from './veo.ts';

/** The Google media provider adapter. */
export const googleMediaAdapter: MediaProviderAdapter = {
  images: googleImages,
  video: googleVideo,
  errorMessage: googleErrorMessage,
  isCredentialRejection: isGoogleKeyRejection,
};
