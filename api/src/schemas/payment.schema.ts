import type { PaymentRecord } from '../../../shared/src/payments/payments.repository.ts';
import type { VoucherRecord } from '../../../shared/src/vouchers/vouchers.repository.ts';
import type { CreatedVouchers } from '../use-cases/self-serve/vouchers.ts';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** A payment as its holder (and the operator) sees it; amounts in whole Toman. */
export const paymentSchema = {
  type: 'object',
  required: ['id', 'amount', 'status', 'ref_id', 'card_pan', 'reason', 'created', 'paid_at'],
  properties: {
    id: { type: 'string' },
    amount: { type: 'integer', description: 'Whole Toman.' },
    status: { type: 'string', enum: ['pending', 'paid', 'failed'] },
    ref_id: { type: ['integer', 'null'], description: 'The gateway’s reference number, once paid.' },
    card_pan: { type: ['string', 'null'], description: 'The payer’s card, masked by the gateway.' },
    reason: { type: ['string', 'null'], description: 'Why it failed (or is still pending).' },
    created: dateTime,
    paid_at: nullableDateTime,
  },
} as const;

export const paymentListSchema = {
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: paymentSchema } },
} as const;

export function toPaymentView(payment: PaymentRecord) {
  return {
    id: payment.id,
    amount: payment.amountToman,
    status: payment.status,
    ref_id: payment.refId,
    card_pan: payment.cardPan,
    reason: payment.reason,
    created: payment.createdAt.toISOString(),
    paid_at: payment.paidAt?.toISOString() ?? null,
  };
}

export const createdPaymentSchema = {
  type: 'object',
  required: ['id', 'amount', 'status', 'redirect_url', 'created'],
  properties: {
    id: { type: 'string' },
    amount: { type: 'integer' },
    status: { type: 'string', enum: ['pending'] },
    redirect_url: {
      type: 'string',
      description: 'The gateway’s StartPay page: send the payer’s browser there.',
    },
    created: dateTime,
  },
} as const;

/** A voucher as the operator sees it: never its code. */
export const voucherSchema = {
  type: 'object',
  required: [
    'id',
    'batch_id',
    'amount',
    'note',
    'status',
    'expires_at',
    'created',
    'redeemed_at',
    'redeemed_by',
  ],
  properties: {
    id: { type: 'string' },
    batch_id: { type: 'string' },
    amount: { type: 'integer', description: 'Whole Toman.' },
    note: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['unused', 'used', 'expired'] },
    expires_at: nullableDateTime,
    created: dateTime,
    redeemed_at: nullableDateTime,
    redeemed_by: { type: ['string', 'null'], description: 'The account that redeemed it.' },
  },
} as const;

export const voucherListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: voucherSchema } },
} as const;

export function toVoucherView(voucher: VoucherRecord, now: Date) {
  const status =
    voucher.redeemedAt !== null
      ? 'used'
      : voucher.expiresAt !== null && voucher.expiresAt.getTime() <= now.getTime()
        ? 'expired'
        : 'unused';
  return {
    id: voucher.id,
    batch_id: voucher.batchId,
    amount: voucher.amountToman,
    note: voucher.note,
    status,
    expires_at: voucher.expiresAt?.toISOString() ?? null,
    created: voucher.createdAt.toISOString(),
    redeemed_at: voucher.redeemedAt?.toISOString() ?? null,
    redeemed_by: voucher.redeemedBy,
  };
}

export const createdVouchersSchema = {
  type: 'object',
  required: ['batch_id', 'codes', 'amount', 'count', 'expires_at', 'note', 'created'],
  properties: {
    batch_id: { type: 'string' },
    codes: {
      type: 'array',
      items: { type: 'string' },
      description: 'Shown this once; only their digests are kept.',
    },
    amount: { type: 'integer' },
    count: { type: 'integer' },
    expires_at: nullableDateTime,
    note: { type: ['string', 'null'] },
    created: dateTime,
  },
} as const;

export function toCreatedVouchersView(created: CreatedVouchers) {
  return {
    batch_id: created.batchId,
    codes: created.codes,
    amount: created.amount,
    count: created.count,
    expires_at: created.expiresAt?.toISOString() ?? null,
    note: created.note,
    created: created.createdAt.toISOString(),
  };
}

/** The body of `POST /vouchers` (operator API and console). */
export const createVouchersBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'count'],
  properties: {
    amount: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000_000_000,
      description: 'Whole Toman per voucher.',
    },
    count: { type: 'integer', minimum: 1, maximum: 1000 },
    expires_at: {
      type: ['string', 'null'],
      maxLength: 40,
      description: 'ISO 8601 time; none: never expires.',
    },
    note: { type: ['string', 'null'], maxLength: 200 },
  },
} as const;

export const voucherListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['used', 'unused'] },
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' },
  },
} as const;
