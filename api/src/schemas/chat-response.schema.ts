/**
 * JSON Schemas of what `POST /v1/chat/completions` and `POST /v1/embeddings` answer (spec): the
 * ChatCompletion, the chunks and error event of a stream, and the embedding list. They document the
 * answers (the OpenAPI document, docs/api.md) and are checked against every answer of the e2e
 * suites; the answers are not serialized through them. Objects are closed: a field the gateway starts
 * sending is added here first.
 */

const integer = { type: 'integer', minimum: 0 } as const;

/** The cost record of an answer, in Toman (an extension of the convention). */
export const serviceSchema = {
  type: 'object',
  description: 'What the request cost, charged once to the wallet (an extension of the convention).',
  additionalProperties: false,
  required: ['model', 'cost', 'currency'],
  properties: {
    model: { type: 'string', description: 'The canonical id of the model that answered.' },
    cost: { type: 'number', minimum: 0, description: 'The charge in Toman (exact to 6 decimals).' },
    currency: { type: 'string', const: 'IRT' },
  },
} as const;

/** The convention's Usage object, as billed. */
export const usageSchema = {
  type: 'object',
  description:
    'Token counts as billed: `completion_tokens` includes the reasoning tokens, `cached_tokens` is the part of `prompt_tokens` read from the provider cache.',
  additionalProperties: false,
  required: [
    'prompt_tokens',
    'completion_tokens',
    'total_tokens',
    'prompt_tokens_details',
    'completion_tokens_details',
  ],
  properties: {
    prompt_tokens: integer,
    completion_tokens: integer,
    total_tokens: integer,
    prompt_tokens_details: {
      type: 'object',
      additionalProperties: false,
      required: ['cached_tokens'],
      properties: { cached_tokens: integer },
    },
    completion_tokens_details: {
      type: 'object',
      additionalProperties: false,
      required: ['reasoning_tokens'],
      properties: { reasoning_tokens: integer },
    },
  },
} as const;

export const toolCallSchema = {
  type: 'object',
  description: 'A function call the model asks for.',
  additionalProperties: false,
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'arguments'],
      properties: {
        name: { type: 'string' },
        arguments: { type: 'string', description: 'The arguments as JSON text.' },
      },
    },
  },
} as const;

export const citationSchema = {
  type: 'object',
  description: 'A source the answer drew on (web search), when the provider reports it.',
  additionalProperties: false,
  required: ['title', 'url'],
  properties: { title: { type: ['string', 'null'] }, url: { type: 'string' } },
} as const;

const finishReasons = ['stop', 'length', 'tool_calls', 'content_filter'] as const;

const reasoningContent = {
  type: 'string',
  description: 'The reasoning text, for models and providers that return it.',
} as const;

export const chatCompletionSchema = {
  type: 'object',
  description: 'A whole chat answer (`stream` absent or false).',
  additionalProperties: false,
  required: ['id', 'object', 'created', 'model', 'choices', 'usage', 'service'],
  properties: {
    id: { type: 'string', description: '`chatcmpl-` and the request id.' },
    object: { type: 'string', const: 'chat.completion' },
    created: { type: 'integer', description: 'Unix seconds.' },
    model: { type: 'string', description: 'The canonical id of the model that answered.' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'message', 'finish_reason', 'logprobs'],
        properties: {
          index: integer,
          message: {
            type: 'object',
            additionalProperties: false,
            required: ['role', 'content'],
            properties: {
              role: { type: 'string', const: 'assistant' },
              content: { type: ['string', 'null'] },
              tool_calls: { type: 'array', items: toolCallSchema },
              reasoning_content: reasoningContent,
            },
          },
          finish_reason: { type: 'string', enum: finishReasons },
          logprobs: { type: ['object', 'null'], description: 'As the provider reported them.' },
        },
      },
    },
    usage: usageSchema,
    citations: { type: 'array', items: citationSchema },
    service: serviceSchema,
  },
} as const;

/**
 * One `data:` event of a stream. The last one, when `stream_options.include_usage` is true, has no
 * choices and carries `usage` and `service`.
 */
export const chatCompletionChunkSchema = {
  type: 'object',
  description:
    'One `data:` event of a streamed answer. With `stream_options.include_usage`, the last chunk has empty `choices` and carries `usage` and `service`.',
  additionalProperties: false,
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'delta', 'finish_reason'],
        properties: {
          index: integer,
          delta: {
            type: 'object',
            additionalProperties: false,
            properties: {
              role: { type: 'string', const: 'assistant' },
              content: { type: 'string' },
              reasoning_content: reasoningContent,
              tool_calls: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['index'],
                  properties: {
                    index: integer,
                    id: { type: 'string' },
                    type: { type: 'string', const: 'function' },
                    function: {
                      type: 'object',
                      additionalProperties: false,
                      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
          finish_reason: { type: ['string', 'null'], enum: [...finishReasons, null] },
        },
      },
    },
    citations: { type: 'array', items: citationSchema },
    usage: usageSchema,
    service: serviceSchema,
  },
} as const;

/** A failure after a stream started: this event, then `data: [DONE]`; nothing is charged. */
export const streamErrorSchema = {
  type: 'object',
  description:
    'A `data:` event telling that the stream failed after it started (`code`: the provider HTTP status, 502 for a broken connection); `data: [DONE]` follows and nothing is charged.',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', const: 'upstream_error' },
        code: { type: 'integer' },
      },
    },
  },
} as const;

export const embeddingListSchema = {
  type: 'object',
  description: 'One vector per input, in input order.',
  additionalProperties: false,
  required: ['object', 'model', 'data', 'usage', 'service'],
  properties: {
    object: { type: 'string', const: 'list' },
    model: { type: 'string' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['object', 'index', 'embedding'],
        properties: {
          object: { type: 'string', const: 'embedding' },
          index: integer,
          embedding: {
            description:
              'Floats, or with `encoding_format: base64` the little-endian float32 bytes in base64.',
            type: ['array', 'string'],
            items: { type: 'number' },
          },
        },
      },
    },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['prompt_tokens', 'total_tokens'],
      properties: { prompt_tokens: integer, total_tokens: integer },
    },
    service: serviceSchema,
  },
} as const;
