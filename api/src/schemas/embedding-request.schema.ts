import { EMBEDDING_DIMENSIONS, MAX_EMBEDDING_INPUTS } from '../../../shared/src/native/request-ranges.ts';

/** JSON Schema of `POST /v1/embeddings` (spec). `model` has its own `model_required` check in the handler. */
export const embeddingRequestSchema = {
  type: 'object',
  required: ['input'],
  properties: {
    model: {
      type: 'string',
      description: 'Required (`provider/model_name`): without it the answer is 400 `model_required`.',
    },
    // One schema for both forms (not `anyOf`), so an error names the bad item, not the first branch.
    input: {
      type: ['string', 'array'],
      minLength: 1,
      minItems: 1,
      maxItems: MAX_EMBEDDING_INPUTS,
      items: { type: 'string', minLength: 1 },
    },
    dimensions: { type: 'integer', minimum: EMBEDDING_DIMENSIONS.min, maximum: EMBEDDING_DIMENSIONS.max },
    encoding_format: { enum: ['float', 'base64'] },
    user: { type: 'string' },
  },
} as const;
