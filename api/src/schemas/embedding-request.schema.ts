/** JSON Schema of `POST /v1/embeddings` (spec). `model` has its own `model_required` check in the handler. */
export const embeddingRequestSchema = {
  type: 'object',
  required: ['input'],
  properties: {
    model: { type: 'string' },
    input: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'string', minLength: 1 } },
      ],
    },
    dimensions: { type: 'integer', minimum: 1, maximum: 65_536 },
    encoding_format: { enum: ['float', 'base64'] },
    user: { type: 'string' },
  },
} as const;
