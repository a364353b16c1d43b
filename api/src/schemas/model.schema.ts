/**
 * JSON Schemas of the spec's Model and ModelList and of the error envelope: they document the
 * answers (the OpenAPI document, docs/api.md), and the console's routes serialize through them.
 */

const nullableNumber = { type: ['number', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;

export const pricingSchema = {
  type: 'object',
  description: 'The price in Toman per `unit`; `output` and `cached_input` only where the model has them.',
  additionalProperties: false,
  required: ['currency', 'unit', 'input'],
  properties: {
    currency: { type: 'string', const: 'IRT' },
    unit: { type: 'string', enum: ['1M_tokens', '1K_chars', 'minute', 'second', 'image'] },
    input: { type: 'number' },
    output: nullableNumber,
    cached_input: nullableNumber,
    long_context: {
      type: 'object',
      description:
        'An extension of the convention: where the provider charges more for a long prompt, the rates (Toman per `unit`) of a request whose prompt has more than `above_input_tokens` tokens; they replace `input`, `output` and `cached_input` for the whole request.',
      additionalProperties: false,
      required: ['above_input_tokens', 'input', 'output', 'cached_input'],
      properties: {
        above_input_tokens: { type: 'integer' },
        input: { type: 'number' },
        output: { type: 'number' },
        cached_input: nullableNumber,
      },
    },
  },
} as const;

export const modelSchema = {
  type: 'object',
  description: 'A model of the catalogue: `<provider>/<model_name>`, its limits, capabilities and price.',
  additionalProperties: false,
  required: ['id', 'object', 'created', 'owned_by'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'model' },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string', enum: ['chat', 'embedding', 'image', 'tts', 'stt', 'video', 'sound'] },
    context_window: nullableInteger,
    max_output_tokens: nullableInteger,
    capabilities: { type: 'array', items: { type: 'string' } },
    pricing: pricingSchema,
    native_id: {
      type: 'string',
      description:
        'The model’s id at its first provider; a request may name the model by it when no other model shares it.',
    },
  },
} as const;

export const modelListSchema = {
  type: 'object',
  description: 'Every enabled model some configured provider can serve.',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: modelSchema },
  },
} as const;

/** The spec's error envelope, which every error answer has (but the media endpoints' 422). */
export const errorSchema = {
  type: 'object',
  description: 'The error envelope of every error answer; `X-Request-Id` names the request to support.',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string', description: 'What went wrong, for a person.' },
        type: {
          type: 'string',
          description: 'The class of the error.',
          enum: [
            'invalid_request_error',
            'invalid_api_key',
            'insufficient_quota',
            'spend_limit_reached',
            'ip_not_allowed',
            'permission_error',
            'rate_limit_exceeded',
            'rate_limit_error',
            'upstream_error',
            'server_error',
          ],
        },
        code: {
          type: ['string', 'integer'],
          description: 'The precise error (`model_not_found`, `model_required`, `upstream_timeout`, …).',
        },
        param: { type: 'null' },
      },
    },
  },
} as const;
