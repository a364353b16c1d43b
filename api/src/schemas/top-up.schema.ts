/** The most one top-up may credit, in Toman. */
export const MAX_TOP_UP_IRT = 1_000_000_000_000;

/**
 * The most significant digits a top-up amount may have: every decimal of at most 15 significant
 * digits comes back unchanged from a double, so the amount a top-up answers (a JSON number) is
 * exactly the one it credited. 123456789012.123456 (18 digits) would be answered as
 * 123456789012.12346: refused instead.
 */
export const MAX_TOP_UP_SIGNIFICANT_DIGITS = 15;

/** `{amount, reference?}` of a top-up (the amount's digits are checked exactly by the route). */
export const topUpBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_TOP_UP_IRT,
      description: `Toman, at most 6 decimals and ${MAX_TOP_UP_SIGNIFICANT_DIGITS} significant digits.`,
    },
    reference: {
      type: 'string',
      maxLength: 200,
      description: 'The payment or receipt number; an empty one is no reference.',
    },
  },
} as const;

const idempotencyKey = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'A top-up repeated with the same key credits once.',
} as const;

/** `Idempotency-Key` of the operator API: optional (without one, every request is a new top-up). */
export const topUpHeadersSchema = {
  type: 'object',
  properties: { 'idempotency-key': idempotencyKey },
} as const;

/**
 * `Idempotency-Key` of the console's top-up: required, so a retried request or a second click of
 * one form submission credits once (the page makes one key per submission).
 */
export const requiredTopUpHeadersSchema = {
  type: 'object',
  required: ['idempotency-key'],
  properties: { 'idempotency-key': idempotencyKey },
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
