/** The most one top-up may credit, in Toman. */
export const MAX_TOP_UP_IRT = 1_000_000_000_000;

/** `{amount, reference?}` of a top-up (the amount's decimals are checked exactly by the route). */
export const topUpBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'number', exclusiveMinimum: 0, maximum: MAX_TOP_UP_IRT },
    reference: { type: 'string', maxLength: 200 },
  },
} as const;

/** `Idempotency-Key`: a top-up repeated with the same key credits once. */
export const topUpHeadersSchema = {
  type: 'object',
  properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

/** `{entry, balance}` of a top-up, with the route's own view of the entry. */
export function topUpResponseSchema<Entry extends object>(entrySchema: Entry) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['entry', 'balance'],
    properties: {
      entry: entrySchema,
      balance: { type: 'number', description: 'The wallet balance after the top-up, in Toman.' },
    },
  } as const;
}

export interface TopUpRequest {
  Params: { id: string };
  Body: { amount: number; reference?: string };
  Headers: { 'idempotency-key'?: string };
}
