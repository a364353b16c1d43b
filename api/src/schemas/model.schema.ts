/** JSON Schemas of the spec's Model and ModelList, used to validate and serialize responses. */

const nullableNumber = { type: ['number', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;

export const pricingSchema = {
  type: 'object',
  required: ['currency', 'unit', 'input'],
  properties: {
    currency: { type: 'string', const: 'IRT' },
    unit: { type: 'string', enum: ['1M_tokens', '1K_chars', 'minute', 'second', 'image'] },
    input: { type: 'number' },
    output: nullableNumber,
    cached_input: nullableNumber,
  },
} as const;

export const modelSchema = {
  type: 'object',
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
    native_id: { type: 'string' },
  },
} as const;

export const modelListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: modelSchema },
  },
} as const;

export const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: ['string', 'integer'] },
        param: { type: 'null' },
      },
    },
  },
} as const;
