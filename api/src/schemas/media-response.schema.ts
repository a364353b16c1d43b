/**
 * JSON Schemas of what the image, audio and video endpoints answer (spec, with the gateway's
 * extensions), and of the transcription form. They document the answers (the OpenAPI document,
 * docs/api.md) and are checked against every answer of the e2e suites; the answers are not
 * serialized through them. Objects are closed: a field the gateway starts sending is added here first.
 */

import { SUPPORTED_AUDIO_FORMATS } from '../../../shared/src/file-formats/audio-probe.ts';
import { MAX_AUDIO_BYTES } from '../media/receive-audio-upload.ts';
import { serviceSchema } from './chat-response.schema.ts';

const unixSeconds = { type: 'integer', description: 'Unix seconds.' } as const;

/** The 422 of the media endpoints' field validation (spec): not the common error envelope. */
export const fieldErrorsSchema = {
  type: 'object',
  description:
    'Field validation of the image and audio endpoints: the first problem as a sentence, and every field with its problems.',
  additionalProperties: false,
  required: ['message', 'errors'],
  properties: {
    message: { type: 'string' },
    errors: {
      type: 'object',
      description: 'Field name → its problems.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
  },
} as const;

export const imagesResponseSchema = {
  type: 'object',
  description: 'The generated images, as base64 PNG.',
  additionalProperties: false,
  required: ['created', 'data', 'usage', 'service'],
  properties: {
    created: unixSeconds,
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['b64_json'],
        properties: {
          b64_json: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
          revised_prompt: { type: 'string', description: 'The prompt the provider actually used.' },
        },
      },
    },
    usage: {
      type: 'object',
      description: 'Always zero: images are priced per image.',
      additionalProperties: false,
      required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
      properties: {
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
      },
    },
    service: serviceSchema,
  },
} as const;

/** `POST /v1/audio/transcriptions`'s `multipart/form-data` fields (read by the route itself). */
export const transcriptionFormSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: `The audio, at most ${MAX_AUDIO_BYTES / 1024 / 1024} MB: ${SUPPORTED_AUDIO_FORMATS.join(', ')} (recognized from its bytes). Its measured duration is the billing basis.`,
    },
    model: { type: 'string', description: 'A speech-to-text model; the configured default when absent.' },
    language: { type: 'string', pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$', examples: ['en', 'fa'] },
    prompt: { type: 'string' },
  },
} as const;

export const transcriptionSchema = {
  type: 'object',
  description: 'The text of the audio, with word timings when the provider gives them.',
  additionalProperties: false,
  required: ['text', 'language', 'duration', 'words', 'service'],
  properties: {
    text: { type: 'string' },
    language: { type: 'string', description: 'The detected language code; empty when not reported.' },
    duration: {
      type: 'number',
      description: 'Seconds: the billing basis (the measured duration, or the provider’s when longer).',
    },
    words: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['word', 'start', 'end'],
        properties: { word: { type: 'string' }, start: { type: 'number' }, end: { type: 'number' } },
      },
    },
    service: serviceSchema,
  },
} as const;

export const videoSchema = {
  type: 'object',
  description:
    'A video render. Extensions of the spec: `progress`, `created_at`, `completed_at`, `expires_at`, and `service` once it is charged.',
  additionalProperties: false,
  required: [
    'id',
    'object',
    'model',
    'status',
    'seconds',
    'aspect_ratio',
    'progress',
    'created_at',
    'completed_at',
    'expires_at',
  ],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'video' },
    model: { type: 'string' },
    status: { type: 'string', enum: ['in_progress', 'completed', 'failed'] },
    seconds: { type: 'integer', minimum: 1, description: 'The requested duration.' },
    aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'] },
    resolution: { type: 'string', enum: ['720p', '1080p'] },
    progress: { type: 'integer', minimum: 0, maximum: 100 },
    url: {
      type: 'string',
      description: 'When completed: this API’s `GET /v1/videos/{id}/content` (same key, `Range` supported).',
    },
    error: {
      type: 'object',
      description: 'When failed: why (a failed render is not charged).',
      additionalProperties: false,
      required: ['message'],
      properties: { message: { type: 'string' } },
    },
    service: {
      type: 'object',
      description: 'Once the video is charged: its cost in Toman.',
      additionalProperties: false,
      required: ['cost', 'currency'],
      properties: { cost: { type: 'number', minimum: 0 }, currency: { type: 'string', const: 'IRT' } },
    },
    created_at: unixSeconds,
    completed_at: { type: ['integer', 'null'], description: 'Unix seconds; null until completed.' },
    expires_at: {
      type: ['integer', 'null'],
      description: 'Unix seconds after which the MP4 is gone; null until completed.',
    },
  },
} as const;

export const videoListSchema = {
  type: 'object',
  description: 'The account’s videos, newest first (an extension of the spec).',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: videoSchema } },
} as const;

export const videoDeletedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'object', 'deleted'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'video.deleted' },
    deleted: { type: 'boolean', const: true },
  },
} as const;
