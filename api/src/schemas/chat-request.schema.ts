/**
 * JSON Schema of `POST /v1/chat/completions` (spec, chat request table). Fields the convention has
 * but the spec does not list are accepted and dropped (clients of the convention send them), so
 * `additionalProperties` stays open at the top level; every listed field is checked exactly.
 * `model` is not `required` here: its absence has its own code (`model_required`), raised by the
 * handler. Every number a price depends on is an integer in a stated range, refused outside it
 * (never clamped): `max_tokens` and `max_completion_tokens` up to `MAX_OUTPUT_TOKENS_FIELD` (each
 * model's own output limit is checked by the handler, naming it), `n` 1 to 16.
 */

import { MAX_OUTPUT_TOKENS_FIELD } from '../../../shared/src/billing/hold-estimate.ts';
import type { NumberRange } from '../../../shared/src/native/field-bounds.ts';
import {
  CHOICES,
  PENALTY,
  SEED,
  TEMPERATURE,
  TOP_LOGPROBS,
  TOP_P,
} from '../../../shared/src/native/request-ranges.ts';
import { nullableFields } from './null-fields.ts';

const HTTPS_OR_DATA_IMAGE = '^(https://\\S+|data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=\\s]*)$';
const DATA_PDF = '^data:application/pdf;base64,[A-Za-z0-9+/=\\s]*$';

const textPart = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' } },
} as const;

const imagePart = {
  type: 'object',
  required: ['type', 'image_url'],
  properties: {
    type: { const: 'image_url' },
    // One schema for both forms (pattern applies to the string, the rest to the object), so an
    // error names the URL instead of the first `anyOf` branch ("must be string").
    image_url: {
      type: ['string', 'object'],
      pattern: HTTPS_OR_DATA_IMAGE,
      required: ['url'],
      properties: { url: { type: 'string', pattern: HTTPS_OR_DATA_IMAGE }, detail: { type: 'string' } },
    },
  },
} as const;

const filePart = {
  type: 'object',
  required: ['type', 'file'],
  properties: {
    type: { const: 'file' },
    file: {
      type: 'object',
      properties: { filename: { type: 'string' }, file_data: { type: 'string', pattern: DATA_PDF } },
    },
  },
} as const;

/** Picks the part schema by `type`, so an error names the part's own fields. */
const contentPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'image_url', 'file'] } },
  allOf: [
    { if: { properties: { type: { const: 'text' } } }, then: textPart },
    { if: { properties: { type: { const: 'image_url' } } }, then: imagePart },
    { if: { properties: { type: { const: 'file' } } }, then: filePart },
  ],
} as const;

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    },
  },
} as const;

const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    // Not `anyOf`: a bad part would be reported as "must be string" (the first branch).
    content: { type: ['string', 'array', 'null'], items: contentPart },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
  },
} as const;

const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: 'boolean' },
      },
    },
  },
} as const;

const toolChoice = {
  anyOf: [
    { enum: ['auto', 'none', 'required'] },
    {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { const: 'function' },
        function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    },
  ],
} as const;

const responseFormat = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['text', 'json_object', 'json_schema'] },
    json_schema: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, strict: { type: 'boolean' }, schema: { type: 'object' } },
    },
  },
  if: { properties: { type: { const: 'json_schema' } } },
  then: { required: ['type', 'json_schema'] },
} as const;

const outputTokens = { type: ['integer', 'null'], minimum: 1, maximum: MAX_OUTPUT_TOKENS_FIELD } as const;

/** A nullable number field in `range` (the ranges the native APIs apply to the same fields). */
function nullableNumber(range: NumberRange) {
  return { type: [range.integer ? 'integer' : 'number', 'null'], minimum: range.min, maximum: range.max };
}

export const chatRequestSchema = {
  type: 'object',
  required: ['messages'],
  properties: {
    model: {
      type: 'string',
      description:
        'Required (`provider/model_name`, a bare upstream id or an alias): without it the answer is 400 `model_required`.',
    },
    messages: { type: 'array', minItems: 1, items: message },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    max_tokens: outputTokens,
    max_completion_tokens: outputTokens,
    temperature: nullableNumber(TEMPERATURE),
    top_p: nullableNumber(TOP_P),
    frequency_penalty: nullableNumber(PENALTY),
    presence_penalty: nullableNumber(PENALTY),
    stop: { type: ['string', 'array', 'null'], items: { type: 'string' }, maxItems: 16 },
    seed: nullableNumber(SEED),
    n: nullableNumber(CHOICES),
    user: { type: 'string' },
    tools: { type: 'array', items: tool, maxItems: 256 },
    tool_choice: toolChoice,
    parallel_tool_calls: { type: 'boolean' },
    response_format: responseFormat,
    reasoning_effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', null] },
    web_search: { type: 'boolean' },
    web_search_options: { type: 'object' },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: nullableNumber(TOP_LOGPROBS),
    logit_bias: {
      type: ['object', 'null'],
      additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    },
  },
} as const;

/**
 * The fields the convention lets a client send as `null` for "not given" (the OpenAI SDKs type
 * them `T | null`). The route drops such a field before validation (`dropNullFieldsHook`), so nothing
 * after it ever sees a null: it is as if the field were absent.
 */
export const NULLABLE_CHAT_FIELDS = nullableFields(chatRequestSchema);

/** The fields of the spec's table: the only ones the gateway forwards. */
export const CHAT_REQUEST_FIELDS = Object.keys(chatRequestSchema.properties);
