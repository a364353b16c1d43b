/**
 * The fake's `POST /v1/images/generations`: validates the body the way OpenAI documents it per
 * model and answers an `ImagesResponse` whose images are real PNGs derived from the prompt.
 *
 * Validation (400 with OpenAI's body): `prompt` required and within the model's length; `n` 1 to
 * 10 (dall-e-3: exactly 1); `size`, `quality`, `background`, `response_format` per model (GPT image
 * models answer `unknown_parameter` for `response_format`, DALL·E models for `background` and
 * `output_format`). A model starting with `missing` gives 404 `model_not_found`.
 *
 * Answer: GPT image models `{created, background, data: [{b64_json}], output_format: 'png',
 * quality, size, usage}` (output tokens from OpenAI's per-quality table, ×1.5 for non-square);
 * DALL·E `{created, data: [{b64_json | url, revised_prompt (dall-e-3)}]}` where `url` (the DALL·E
 * default) points at the fake's own `/fake-files/…` route. PNGs measure the size divided by 64
 * (1024x1024 -> 16x16), so the IHDR shows which size was asked for. Only PNG output is made:
 * `output_format` jpeg/webp answers 400 (a fake limit, said in the message).
 */
import { createHash } from 'node:crypto';
import { seededPng } from './media-files.ts';
import type { Json } from './openai-fake-answers.ts';
import { FAKE_CREATED } from './openai-fake-answers.ts';
import {
  errorReply,
  type FakeReply,
  invalidValue,
  jsonReply,
  missingModel,
  unknownParameter,
} from './openai-media-reply.ts';

interface FakeImageModel {
  family: 'gpt-image' | 'dall-e-3' | 'dall-e-2';
  sizes: string[];
  qualities: string[];
  maxPrompt: number;
  maxN: number;
}

const MODELS: Record<FakeImageModel['family'], FakeImageModel> = {
  'gpt-image': {
    family: 'gpt-image',
    sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'],
    qualities: ['low', 'medium', 'high', 'auto'],
    maxPrompt: 32000,
    maxN: 10,
  },
  'dall-e-3': {
    family: 'dall-e-3',
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    qualities: ['standard', 'hd'],
    maxPrompt: 4000,
    maxN: 1,
  },
  'dall-e-2': {
    family: 'dall-e-2',
    sizes: ['256x256', '512x512', '1024x1024'],
    qualities: ['standard'],
    maxPrompt: 1000,
    maxN: 10,
  },
};

function modelOf(name: string): FakeImageModel {
  if (name.startsWith('dall-e-3')) return MODELS['dall-e-3'];
  if (name.startsWith('dall-e-2')) return MODELS['dall-e-2'];
  return MODELS['gpt-image'];
}

/** OpenAI's documented gpt-image-1 output tokens for a square image, per quality. */
const OUTPUT_TOKENS: Record<string, number> = { low: 272, medium: 1056, high: 4160 };

function familyParameterError(body: Json, model: FakeImageModel): FakeReply | undefined {
  if (model.family === 'gpt-image') {
    if (body.response_format !== undefined) return unknownParameter('response_format');
    const background = body.background ?? 'auto';
    if (!['transparent', 'opaque', 'auto'].includes(String(background))) {
      return invalidValue('background', background, ['transparent', 'opaque', 'auto']);
    }
    if (body.output_format !== undefined && body.output_format !== 'png') {
      return errorReply(400, 'This fake makes PNG only.', { param: 'output_format' });
    }
    return undefined;
  }
  if (body.background !== undefined) return unknownParameter('background');
  if (body.output_format !== undefined) return unknownParameter('output_format');
  const format = body.response_format ?? 'url';
  return format === 'url' || format === 'b64_json'
    ? undefined
    : invalidValue('response_format', format, ['url', 'b64_json']);
}

function imageRequestError(body: Json, model: FakeImageModel): FakeReply | undefined {
  if (typeof body.prompt !== 'string' || body.prompt === '') {
    return errorReply(400, "Missing required parameter: 'prompt'.", {
      param: 'prompt',
      code: 'missing_required_parameter',
    });
  }
  if (body.prompt.length > model.maxPrompt) {
    return errorReply(
      400,
      `Invalid 'prompt': string too long. Expected a string with maximum length ${model.maxPrompt}.`,
      {
        param: 'prompt',
        code: 'string_above_max_length',
      },
    );
  }
  const n = body.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 10) {
    return errorReply(400, `Invalid 'n': must be an integer between 1 and 10.`, { param: 'n' });
  }
  if (n > model.maxN) return errorReply(400, 'You must provide n=1 for this model.', { param: 'n' });
  if (body.size !== undefined && !model.sizes.includes(String(body.size))) {
    return invalidValue('size', body.size, model.sizes);
  }
  if (body.quality !== undefined && !model.qualities.includes(String(body.quality))) {
    return invalidValue('quality', body.quality, model.qualities);
  }
  return familyParameterError(body, model);
}

function pixelSize(size: string): [number, number] {
  const [width = 1024, height = 1024] = (size === 'auto' ? '1024x1024' : size).split('x').map(Number);
  return [Math.max(1, Math.round(width / 64)), Math.max(1, Math.round(height / 64))];
}

export interface FakeImageOutput {
  reply: FakeReply;
  /** PNGs to serve at `/fake-files/<name>` (DALL·E URL answers). */
  files: Map<string, Buffer>;
}

/** The whole route: validation, then the documented answer. `origin` is the fake's `http://host:port`. */
export function imagesAnswer(body: Json, origin: string): FakeImageOutput {
  const files = new Map<string, Buffer>();
  const modelName = typeof body.model === 'string' ? body.model : 'dall-e-2';
  const invalid = missingModel(modelName) ?? imageRequestError(body, modelOf(modelName));
  if (invalid) return { reply: invalid, files };
  const model = modelOf(modelName);
  const prompt = String(body.prompt);
  const size = String(body.size ?? (model.family === 'gpt-image' ? 'auto' : '1024x1024'));
  const [width, height] = pixelSize(size);
  const transparent = body.background === 'transparent';
  const count = Number(body.n ?? 1);
  const data = Array.from({ length: count }, (_, index) => {
    const png = seededPng(`${prompt}#${index}`, width, height, transparent);
    const revised = model.family === 'dall-e-3' ? { revised_prompt: `A detailed picture of ${prompt}` } : {};
    if (model.family === 'gpt-image' || body.response_format === 'b64_json') {
      return { b64_json: png.toString('base64'), ...revised };
    }
    const name = `image-${createHash('sha256').update(png).digest('hex').slice(0, 16)}.png`;
    files.set(name, png);
    return { url: `${origin}/fake-files/${name}`, ...revised };
  });
  if (model.family !== 'gpt-image') return { reply: jsonReply({ created: FAKE_CREATED, data }), files };
  return { reply: jsonReply(gptImageAnswer(body, prompt, size, data)), files };
}

function gptImageAnswer(body: Json, prompt: string, size: string, data: Json[]): Json {
  const quality = body.quality === undefined || body.quality === 'auto' ? 'medium' : String(body.quality);
  const squareTokens = OUTPUT_TOKENS[quality] ?? 1056;
  const perImage = size === '1024x1024' || size === 'auto' ? squareTokens : Math.round(squareTokens * 1.5);
  const inputTokens = Math.max(1, Math.ceil(prompt.length / 4));
  const outputTokens = perImage * data.length;
  return {
    created: FAKE_CREATED,
    background: body.background === 'transparent' ? 'transparent' : 'opaque',
    data,
    output_format: 'png',
    quality,
    size: size === 'auto' ? '1024x1024' : size,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { image_tokens: 0, text_tokens: inputTokens },
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    },
  };
}
