/**
 * Google image generation as the gateway's ImageAdapter: Imagen models through `:predict`
 * (imagen.ts), Gemini image models through `:generateContent` (gemini-image.ts), chosen by the
 * route's native model id. The answer is told apart by its shape (`candidates`/`promptFeedback`
 * for generateContent, `predictions` or nothing for predict), since `response` gets no target.
 *
 * Options neither family has: `quality` (only `auto` is accepted: the model decides quality, and
 * the price per image does not change) and a transparent `background` (the PNGs are opaque);
 * other values are refused instead of being ignored.
 */
import type { UpstreamTarget } from '../../chat-types.ts';
import type { ImageAdapter, ImageRequest, ImageResult, MediaHttpRequest } from '../../media-types.ts';
import { UnsupportedFeatureError } from '../errors.ts';
import {
  fromGeminiImageResponse,
  isGeminiImageModel,
  isGenerateContentAnswer,
  toGeminiImageRequest,
} from './gemini-image.ts';
import { fromImagenResponse, toImagenRequest } from './imagen.ts';

function checkCommonOptions(request: ImageRequest): void {
  if (request.quality !== undefined && request.quality !== 'auto') {
    throw new UnsupportedFeatureError(
      'quality',
      'Google image models have no quality setting; omit quality (or send auto), or pick another model.',
    );
  }
  if (request.background !== undefined && !['auto', 'opaque'].includes(request.background)) {
    throw new UnsupportedFeatureError('background', 'Google image models render opaque images only.');
  }
}

export const googleImages: ImageAdapter = {
  request(request: ImageRequest, target: UpstreamTarget): MediaHttpRequest {
    checkCommonOptions(request);
    return isGeminiImageModel(target.nativeModel)
      ? toGeminiImageRequest(request, target)
      : toImagenRequest(request, target);
  },
  response(json: unknown): ImageResult {
    return isGenerateContentAnswer(json) ? fromGeminiImageResponse(json) : fromImagenResponse(json);
  },
};
