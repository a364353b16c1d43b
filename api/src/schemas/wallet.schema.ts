/**
 * JSON Schemas of `GET /v1/balance` and `GET /v1/usage` (spec). They document the answers (the
 * OpenAPI document, docs/api.md) and are checked against every answer of the e2e suites.
 */

import { usageRowSchema } from './usage-row.schema.ts';

export const balanceSchema = {
  type: 'object',
  description: 'The account’s API wallet in Toman (holds of requests in flight not deducted).',
  additionalProperties: false,
  required: ['object', 'currency', 'balance', 'min_required'],
  properties: {
    object: { type: 'string', const: 'balance' },
    currency: { type: 'string', const: 'IRT' },
    balance: { type: 'number' },
    min_required: { type: 'number', description: 'Requests are refused with 402 below this balance.' },
  },
} as const;

export const usageListSchema = {
  type: 'object',
  description: 'One row per billing day and model over every key of the account, by date then model.',
  additionalProperties: false,
  required: ['object', 'currency', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    currency: { type: 'string', const: 'IRT' },
    data: { type: 'array', items: usageRowSchema },
  },
} as const;
