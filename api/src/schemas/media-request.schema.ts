import { MAX_SPEECH_CHARACTERS, SPEECH_SPEED } from '../../../shared/src/native/request-ranges.ts';
import { nullableFields } from './null-fields.ts';

/** JSON Schemas of the image and speech request bodies (spec); violations answer 422. */

export const imageRequestSchema = {
  type: 'object',
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 32_000 },
    // The nullable fields (the convention's SDKs type them `… | null`): null counts as absent.
    model: { type: ['string', 'null'], minLength: 1 },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 4, default: 1 },
    size: { type: ['string', 'null'], pattern: '^([1-9][0-9]{1,4}x[1-9][0-9]{1,4}|auto)$' },
    quality: { type: ['string', 'null'], enum: ['low', 'medium', 'high', 'auto', null] },
    background: { type: ['string', 'null'], maxLength: 32 },
    aspect_ratio: { type: 'string', pattern: '^[1-9][0-9]?:[1-9][0-9]?$' },
    // The convention's clients may ask for base64 explicitly; it is the only form answered.
    response_format: { type: ['string', 'null'], enum: ['b64_json', null] },
    user: { type: 'string' },
  },
} as const;

/**
 * The image fields the schema lets be `null`: sent as null they are dropped before validation, so
 * the default model, one image and the model's size apply.
 */
export const NULLABLE_IMAGE_FIELDS = nullableFields(imageRequestSchema);

export const speechRequestSchema = {
  type: 'object',
  required: ['input', 'voice'],
  properties: {
    input: { type: 'string', minLength: 1, maxLength: MAX_SPEECH_CHARACTERS },
    voice: { type: 'string', minLength: 1, maxLength: 128 },
    model: { type: 'string', minLength: 1 },
    instructions: { type: 'string', maxLength: 4_096 },
    speed: { type: 'number', minimum: SPEECH_SPEED.min, maximum: SPEECH_SPEED.max },
    // Only MP3 is produced (spec: `audio/mpeg`).
    response_format: { const: 'mp3' },
  },
} as const;

/**
 * `POST /v1/videos` (answered 400, not 422). `model` is required but not `required` here: its
 * absence (or an empty name) has its own code, `model_required`, raised by the handler as for chat
 * and embeddings.
 */
export const videoRequestSchema = {
  type: 'object',
  required: ['prompt'],
  properties: {
    model: {
      type: 'string',
      description: 'Required (`provider/model_name`): without it the answer is 400 `model_required`.',
    },
    prompt: { type: 'string', minLength: 1, maxLength: 32_000 },
    duration: { type: 'integer', minimum: 1, maximum: 60, default: 8 },
    aspect_ratio: { enum: ['16:9', '9:16', '1:1'] },
    resolution: { enum: ['720p', '1080p'] },
  },
} as const;
