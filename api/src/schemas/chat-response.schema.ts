/** JSON Schemas of the non-streamed ChatCompletion (spec), used to serialize it quickly and exactly. */

const usage = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
    prompt_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' } } },
    completion_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
  },
} as const;

const toolCall = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
  },
} as const;

export const serviceSchema = {
  type: 'object',
  properties: { model: { type: 'string' }, cost: { type: 'number' }, currency: { type: 'string' } },
} as const;

export const chatCompletionSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: {
              role: { type: 'string' },
              content: { type: ['string', 'null'] },
              tool_calls: { type: 'array', items: toolCall },
              reasoning_content: { type: 'string' },
            },
          },
          finish_reason: { type: ['string', 'null'] },
          logprobs: { type: ['object', 'null'], additionalProperties: true },
        },
      },
    },
    usage,
    citations: {
      type: 'array',
      items: { type: 'object', properties: { title: { type: ['string', 'null'] }, url: { type: 'string' } } },
    },
    service: serviceSchema,
  },
} as const;

export const embeddingResponseSchema = {
  type: 'object',
  required: ['object', 'model', 'data', 'usage'],
  properties: {
    object: { type: 'string' },
    model: { type: 'string' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          object: { type: 'string' },
          index: { type: 'integer' },
          embedding: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] },
        },
      },
    },
    usage: {
      type: 'object',
      properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
    service: serviceSchema,
  },
} as const;
