/**
 * What the fake Gemini media API answers, derived from the request:
 * - Imagen `:predict`: `{predictions: [{mimeType: 'image/png', bytesBase64Encoded}]}`, one REAL
 *   PNG per sample, deterministic from the prompt and the sample index, sized by the aspect ratio
 *   (a:b → 4a x 4b pixels, doubled for `sampleImageSize: 2K`). `sampleCount` defaults to 4 as
 *   documented. A prompt containing `[filtered]` has every image filtered (`raiFilteredReason`
 *   when `includeRaiReason` is set, else `{}`); `[filter-one]` drops the last image.
 * - Gemini image models `:generateContent`: one PNG as an `inlineData` part, usage with the
 *   documented 1290 output tokens per image; `[filtered]` answers `promptFeedback.blockReason`.
 * - Invalid bodies answer 400 INVALID_ARGUMENT as the API does.
 */

import { asArray, asRecord, type Json, json, type MediaReply } from './media-fake-kit.ts';
import { seededPng } from './media-files.ts';

export const IMAGEN_RATIOS = ['1:1', '3:4', '4:3', '9:16', '16:9'];
export const GEMINI_IMAGE_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
export const RAI_REASON =
  'Your current safety filter threshold filtered out the generated image. You will not be charged for blocked images. Try rephrasing the prompt. Support code: 39322892';

import { errorBody } from './google-errors.ts';

export { errorBody };

export function invalidArgument(message: string): MediaReply {
  return json(errorBody(400, 'INVALID_ARGUMENT', message), 400);
}

function dimensions(ratio: string, scale: number): { width: number; height: number } {
  const [a, b] = ratio.split(':').map(Number);
  return { width: (a ?? 1) * 4 * scale, height: (b ?? 1) * 4 * scale };
}

/** The PNG of sample `index` for a prompt (what both image paths return). */
export function fakeImage(prompt: string, index: number, ratio: string, scale = 1): Buffer {
  const { width, height } = dimensions(ratio, scale);
  return seededPng(`${prompt}#${index}`, width, height);
}

function checkImagenParameters(parameters: Json, model: string): string | undefined {
  const count = parameters.sampleCount ?? 4;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 4) {
    return `Invalid sample count: ${String(count)}. It must be between 1 and 4.`;
  }
  const ratio = parameters.aspectRatio;
  if (ratio !== undefined && !IMAGEN_RATIOS.includes(String(ratio))) {
    return `Unsupported aspect ratio: ${String(ratio)}.`;
  }
  const size = parameters.sampleImageSize;
  if (size !== undefined && size !== '1K' && size !== '2K')
    return `Unsupported sample image size: ${String(size)}.`;
  if (size === '2K' && model.includes('fast')) return `sampleImageSize is not supported for ${model}.`;
  return undefined;
}

/** The `:predict` answer for an Imagen model. */
export function imagenAnswer(body: Json, model: string): MediaReply {
  const prompt = asRecord(asArray(body.instances)[0])?.prompt;
  if (typeof prompt !== 'string' || prompt === '') return invalidArgument('instances[0].prompt is required.');
  const parameters = asRecord(body.parameters) ?? {};
  const invalid = checkImagenParameters(parameters, model);
  if (invalid) return invalidArgument(invalid);
  const count = Number(parameters.sampleCount ?? 4);
  if (prompt.includes('[filtered]')) {
    const filtered = Array.from({ length: count }, () => ({ raiFilteredReason: RAI_REASON }));
    return json(parameters.includeRaiReason === true ? { predictions: filtered } : {});
  }
  const delivered = prompt.includes('[filter-one]') ? count - 1 : count;
  const ratio = String(parameters.aspectRatio ?? '1:1');
  const scale = parameters.sampleImageSize === '2K' ? 2 : 1;
  const predictions: Json[] = Array.from({ length: delivered }, (_, index) => ({
    mimeType: 'image/png',
    bytesBase64Encoded: fakeImage(prompt, index, ratio, scale).toString('base64'),
  }));
  if (delivered < count && parameters.includeRaiReason === true)
    predictions.push({ raiFilteredReason: RAI_REASON });
  return json({ predictions });
}

function promptTextOf(body: Json): string | undefined {
  const part = asRecord(asArray(asRecord(asArray(body.contents)[0])?.parts)[0]);
  return typeof part?.text === 'string' ? part.text : undefined;
}

/** The `:generateContent` answer for a Gemini image model. */
export function geminiImageAnswer(body: Json): MediaReply {
  const prompt = promptTextOf(body);
  if (prompt === undefined) return invalidArgument('contents[0].parts[0].text is required.');
  const config = asRecord(body.generationConfig) ?? {};
  const ratio = String(asRecord(config.imageConfig)?.aspectRatio ?? '1:1');
  if (!GEMINI_IMAGE_RATIOS.includes(ratio)) return invalidArgument(`Unsupported aspect ratio: ${ratio}.`);
  const modalities = asArray(config.responseModalities).map((value) => String(value).toUpperCase());
  const promptTokenCount = Math.ceil(prompt.length / 4);
  if (prompt.includes('[filtered]')) {
    return json({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount } });
  }
  const parts = modalities.includes('IMAGE')
    ? [{ inlineData: { mimeType: 'image/png', data: fakeImage(prompt, 0, ratio).toString('base64') } }]
    : [{ text: 'I can describe it, but images were not requested.' }];
  const candidatesTokenCount = modalities.includes('IMAGE') ? 1290 : 12;
  return json({
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount,
      candidatesTokenCount,
      totalTokenCount: promptTokenCount + candidatesTokenCount,
    },
    modelVersion: 'gemini-2.5-flash-image',
  });
}
