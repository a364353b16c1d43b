/**
 * Imagen through the Gemini API: `POST {base}/v1beta/models/{model}:predict`, per
 * https://ai.google.dev/gemini-api/docs/imagen and js-genai's `generateImagesConfigToMldev`:
 * body `{instances: [{prompt}], parameters: {sampleCount, aspectRatio?, sampleImageSize?,
 * includeRaiReason}}` (the SDK's `numberOfImages` → `sampleCount`, `imageSize` →
 * `sampleImageSize`); answer `{predictions: [{bytesBase64Encoded, mimeType, prompt?}]}`.
 *
 * Decisions: `n` → `sampleCount` (Imagen 4: 1 to 4). `size`/`aspect_ratio` → `aspectRatio` from
 * 1:1, 3:4, 4:3, 9:16, 16:9 (see image-size.ts); a size nearer to the 2K tier than to 1K asks for
 * `sampleImageSize: 2K`, which Imagen 4 Standard and Ultra offer and Imagen 4 Fast does not (then
 * the request is refused rather than silently served smaller). `personGeneration` is left at the
 * API default (`allow_adult`). `includeRaiReason` is set so that filtered images say why. Images
 * the safety filter removed are simply missing from the answer: the result holds the ones
 * delivered (billing is per delivered image); when every image was removed the prompt is refused.
 */

import { sanitizeUpstreamText } from '../../../upstream/upstream-text.ts';
import type { UpstreamTarget } from '../../chat-types.ts';
import { UpstreamProtocolError } from '../../chat-types.ts';
import type { ImageRequest, ImageResult, MediaHttpRequest } from '../../media-types.ts';
import { bareModelId, geminiHeaders } from '../api.ts';
import { UnsupportedFeatureError } from '../errors.ts';
import { firstIssue } from '../wire-response.ts';
import { aspectRatioFor, wantsTwoK } from './image-size.ts';
import { requirePngBase64 } from './inline-png.ts';
import { modelMethodUrl } from './urls.ts';
import { imagenResponseSchema } from './wire-schemas.ts';

/** The aspect ratios Imagen 4 offers. */
export const IMAGEN_ASPECT_RATIOS = ['1:1', '3:4', '4:3', '9:16', '16:9'] as const;

/** Imagen 4 Standard and Ultra render 2K images; Fast (and Imagen 3) only 1K. */
export function imagenOffersTwoK(nativeModel: string): boolean {
  return /^imagen-4\.0-(?:ultra-)?generate/.test(bareModelId(nativeModel));
}

/** The `:predict` body for an image request. */
export function toImagenBody(request: ImageRequest, nativeModel: string): Record<string, unknown> {
  if (!Number.isInteger(request.n) || request.n < 1 || request.n > 4) {
    throw new UnsupportedFeatureError('n', 'Imagen generates 1 to 4 images per request.');
  }
  const parameters: Record<string, unknown> = { sampleCount: request.n, includeRaiReason: true };
  const aspectRatio = aspectRatioFor(request, IMAGEN_ASPECT_RATIOS);
  if (aspectRatio !== undefined) parameters.aspectRatio = aspectRatio;
  if (wantsTwoK(request)) {
    if (!imagenOffersTwoK(nativeModel)) {
      throw new UnsupportedFeatureError(
        'size',
        `${bareModelId(nativeModel)} renders 1K images only (at most 1408 pixels a side); ask for a smaller size or use Imagen 4 Standard or Ultra.`,
      );
    }
    parameters.sampleImageSize = '2K';
  }
  return { instances: [{ prompt: request.prompt }], parameters };
}

/** The `:predict` request. */
export function toImagenRequest(request: ImageRequest, target: UpstreamTarget): MediaHttpRequest {
  return {
    method: 'POST',
    url: modelMethodUrl(target, 'predict'),
    headers: geminiHeaders(target.apiKey),
    body: JSON.stringify(toImagenBody(request, target.nativeModel)),
  };
}

/** The images of a `:predict` answer (the delivered ones, in order). */
export function fromImagenResponse(json: unknown): ImageResult {
  const parsed = imagenResponseSchema.safeParse(json);
  if (!parsed.success) throw new UpstreamProtocolError(`Imagen PredictResponse: ${firstIssue(parsed.error)}`);
  const predictions = parsed.data.predictions ?? [];
  const images = predictions.flatMap((prediction) => {
    if (prediction.bytesBase64Encoded === undefined) return [];
    const base64 = requirePngBase64(prediction.bytesBase64Encoded, prediction.mimeType, 'Imagen prediction');
    return [prediction.prompt ? { base64, revisedPrompt: prediction.prompt } : { base64 }];
  });
  if (images.length > 0) return { images };
  const reasons = predictions.flatMap((prediction) => prediction.raiFilteredReason ?? []);
  const why = reasons.length > 0 ? `: ${sanitizeUpstreamText(reasons.join(' '))}` : '.';
  throw new UnsupportedFeatureError('prompt', `Imagen's safety filters removed every image${why}`);
}
