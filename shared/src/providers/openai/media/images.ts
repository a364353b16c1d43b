/**
 * Gateway image request <-> OpenAI `POST <baseUrl>/images/generations` (JSON in, JSON out).
 *
 * Shapes followed: openai-node `ImageGenerateParams` (`model`, `prompt`, `n`, `size`, `quality`,
 * `background`, `output_format`, `response_format`) and `ImagesResponse` (`created`, `data[]` of
 * `{b64_json, url, revised_prompt}`, `usage {input_tokens, output_tokens}` for GPT image models).
 *
 * GPT image models always answer base64 and reject `response_format`, so they get
 * `output_format: 'png'` (the gateway serves PNG); DALL·E models get `response_format: 'b64_json'`
 * (their default is a URL that expires after an hour). Model rules and the size, quality and
 * background mapping are in image-models.ts.
 */
import { UnsupportedFeatureError, UpstreamProtocolError, type UpstreamTarget } from '../../chat-types.ts';
import type { ImageAdapter, ImageRequest, ImageResult, MediaHttpRequest } from '../../media-types.ts';
import { jsonHeaders, mediaUrl } from './api.ts';
import { imageModelRules, upstreamBackground, upstreamQuality, upstreamSize } from './image-models.ts';
import { wireImagesSchema } from './wire-schemas.ts';

/** The upstream JSON body for an image request; throws UnsupportedFeatureError for what the model cannot do. */
export function toImageRequestBody(request: ImageRequest, nativeModel: string): Record<string, unknown> {
  const rules = imageModelRules(nativeModel);
  if (request.n > rules.maxImages) {
    throw new UnsupportedFeatureError(
      'n',
      `OpenAI ${nativeModel} makes at most ${rules.maxImages} image${rules.maxImages === 1 ? '' : 's'} per request.`,
    );
  }
  if (request.prompt.length > rules.maxPromptChars) {
    throw new UnsupportedFeatureError(
      'prompt',
      `OpenAI ${nativeModel} takes prompts of at most ${rules.maxPromptChars} characters.`,
    );
  }
  const size = upstreamSize(request, rules, nativeModel);
  const quality = upstreamQuality(request, rules, nativeModel);
  const background = upstreamBackground(request, rules, nativeModel);
  return {
    model: nativeModel,
    prompt: request.prompt,
    n: request.n,
    ...(size === undefined ? {} : { size }),
    ...(quality === undefined ? {} : { quality }),
    ...(background === undefined ? {} : { background }),
    ...(rules.family === 'gpt-image' ? { output_format: 'png' } : { response_format: 'b64_json' }),
  };
}

/** Maps the answer: one image per `data` item (base64, or a URL if the upstream chose one). */
export function fromImageResponse(json: unknown, request: ImageRequest): ImageResult {
  const parsed = wireImagesSchema.safeParse(json);
  if (!parsed.success) {
    throw new UpstreamProtocolError('OpenAI images answer does not have the documented shape.');
  }
  const { data, usage } = parsed.data;
  if (data.length === 0 || data.length > request.n) {
    throw new UpstreamProtocolError(`OpenAI images answer has ${data.length} images for n = ${request.n}.`);
  }
  const images = data.map((item) => {
    if (!item.b64_json && !item.url) {
      throw new UpstreamProtocolError('OpenAI images answer has an image without b64_json or url.');
    }
    return {
      ...(item.b64_json ? { base64: item.b64_json } : { url: item.url ?? '' }),
      ...(item.revised_prompt ? { revisedPrompt: item.revised_prompt } : {}),
    };
  });
  return {
    images,
    ...(usage ? { usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } } : {}),
  };
}

/** OpenAI images: GPT image models and DALL·E 3/2. */
export const openaiImageAdapter: ImageAdapter = {
  request(request: ImageRequest, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'POST',
      url: mediaUrl(target.baseUrl, '/images/generations'),
      headers: jsonHeaders(target),
      body: JSON.stringify(toImageRequestBody(request, target.nativeModel)),
    };
  },
  response: fromImageResponse,
};
