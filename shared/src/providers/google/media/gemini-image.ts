/**
 * Gemini's native image models (e.g. `gemini-2.5-flash-image`) through `generateContent`, per
 * https://ai.google.dev/gemini-api/docs/image-generation and js-genai `ImageConfig`: body
 * `{contents: [{role: 'user', parts: [{text: prompt}]}], generationConfig: {responseModalities:
 * ['IMAGE'], imageConfig: {aspectRatio?, imageSize?}}}`; the image comes back as a part
 * `{inlineData: {mimeType: 'image/png', data: <base64>}}` of the first candidate.
 *
 * Decisions: one image per call (`n` > 1 is refused: it would be several billed calls).
 * `size`/`aspect_ratio` → `imageConfig.aspectRatio` from 1:1, 2:3, 3:2, 3:4, 4:3, 9:16, 16:9, 21:9
 * (nearest, see image-size.ts). Gemini 2.5 image models render about 1 megapixel only, so a size
 * nearer the 2K tier is refused for them; later image models get `imageSize: '2K'`. No image in
 * the answer (blocked prompt, safety finish, text-only reply) refuses the prompt with the reason.
 */
import type { UpstreamTarget } from '../../chat-types.ts';
import { UpstreamProtocolError } from '../../chat-types.ts';
import type { ImageRequest, ImageResult, MediaHttpRequest } from '../../media-types.ts';
import { bareModelId, chatUrl, geminiHeaders } from '../api.ts';
import { UnsupportedFeatureError } from '../errors.ts';
import { firstIssue } from '../wire-response.ts';
import { aspectRatioFor, wantsTwoK } from './image-size.ts';
import { requirePngBase64 } from './inline-png.ts';
import { type GeminiImageResponse, geminiImageResponseSchema } from './wire-schemas.ts';

export const GEMINI_IMAGE_ASPECT_RATIOS = [
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '9:16',
  '16:9',
  '21:9',
] as const;

/** Whether the model is a Gemini image model (served by generateContent, not Imagen's predict). */
export function isGeminiImageModel(nativeModel: string): boolean {
  return bareModelId(nativeModel).startsWith('gemini-');
}

function imageConfigFor(request: ImageRequest, nativeModel: string): Record<string, string> {
  const config: Record<string, string> = {};
  const aspectRatio = aspectRatioFor(request, GEMINI_IMAGE_ASPECT_RATIOS);
  if (aspectRatio !== undefined) config.aspectRatio = aspectRatio;
  if (wantsTwoK(request)) {
    if (bareModelId(nativeModel).startsWith('gemini-2.5-')) {
      throw new UnsupportedFeatureError(
        'size',
        `${bareModelId(nativeModel)} renders about one megapixel (1024x1024 at 1:1); ask for a smaller size.`,
      );
    }
    config.imageSize = '2K';
  }
  return config;
}

/** The generateContent body for an image request. */
export function toGeminiImageBody(request: ImageRequest, nativeModel: string): Record<string, unknown> {
  if (request.n !== 1) {
    throw new UnsupportedFeatureError('n', 'Gemini image models return one image per request; send n = 1.');
  }
  const imageConfig = imageConfigFor(request, nativeModel);
  return {
    contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
    generationConfig: {
      responseModalities: ['IMAGE'],
      ...(Object.keys(imageConfig).length > 0 ? { imageConfig } : {}),
    },
  };
}

export function toGeminiImageRequest(request: ImageRequest, target: UpstreamTarget): MediaHttpRequest {
  return {
    method: 'POST',
    url: chatUrl(target, false),
    headers: geminiHeaders(target.apiKey),
    body: JSON.stringify(toGeminiImageBody(request, target.nativeModel)),
  };
}

function noImageReason(response: GeminiImageResponse): string {
  const blocked = response.promptFeedback?.blockReason;
  if (blocked) return `the prompt was blocked (${blocked})`;
  const finish = response.candidates?.[0]?.finishReason;
  return finish ? `the model finished without an image (${finish})` : 'the model returned no image';
}

/** The image of a generateContent answer, with token usage. */
export function fromGeminiImageResponse(json: unknown): ImageResult {
  const parsed = geminiImageResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new UpstreamProtocolError(`Gemini GenerateContentResponse: ${firstIssue(parsed.error)}`);
  }
  const parts = parsed.data.candidates?.[0]?.content?.parts ?? [];
  const inline = parts.find((part) => part.inlineData !== undefined && part.thought !== true)?.inlineData;
  if (!inline) throw new UnsupportedFeatureError('prompt', `Gemini: ${noImageReason(parsed.data)}.`);
  const base64 = requirePngBase64(inline.data, inline.mimeType, 'Gemini image part');
  const usage = parsed.data.usageMetadata;
  return {
    images: [{ base64 }],
    usage: { inputTokens: usage?.promptTokenCount ?? 0, outputTokens: usage?.candidatesTokenCount ?? 0 },
  };
}

/** Whether an images answer is a generateContent answer rather than an Imagen PredictResponse. */
export function isGenerateContentAnswer(json: unknown): boolean {
  return typeof json === 'object' && json !== null && ('candidates' in json || 'promptFeedback' in json);
}
