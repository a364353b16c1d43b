import type { Billing } from '../../../../shared/src/billing/billing.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { MICROS_PER_TOMAN } from '../../../../shared/src/payments/payment-settlement.ts';
import {
  type NewVoucher,
  newVoucherCode,
  newVoucherId,
  type VouchersRepository,
  voucherCodeHash,
} from '../../../../shared/src/vouchers/vouchers.repository.ts';
import { selfServeErrors } from '../../self-serve/self-serve-errors.ts';

export interface CreateVouchersInput {
  readonly amount: number;
  readonly count: number;
  readonly expiresAt?: string | null;
  readonly note?: string | null;
}

export interface CreatedVouchers {
  readonly batchId: string;
  readonly codes: string[];
  readonly amount: number;
  readonly count: number;
  readonly expiresAt: Date | null;
  readonly note: string | null;
  readonly createdAt: Date;
}

/**
 * Makes `count` vouchers worth `amount` Toman each; the codes are answered once and stored only as
 * their SHA-256. 400 for an `expires_at` that is not in the future.
 */
export async function createVouchers(
  deps: { vouchers: Pick<VouchersRepository, 'createMany'>; clock: () => Date },
  input: CreateVouchersInput,
): Promise<CreatedVouchers> {
  const now = deps.clock();
  const expiresAt = input.expiresAt == null ? null : new Date(input.expiresAt);
  if (expiresAt !== null && !(expiresAt.getTime() > now.getTime()))
    throw errors.invalidRequest('Invalid field `expires_at`: must be a time in the future.');
  const batchId = newVoucherId('vbt');
  const note = input.note?.trim() ? input.note.trim() : null;
  const codes = Array.from({ length: input.count }, () => newVoucherCode());
  const vouchers: NewVoucher[] = codes.map((code) => ({
    id: newVoucherId('vch'),
    batchId,
    codeHash: voucherCodeHash(code),
    amountToman: input.amount,
    note,
    expiresAt,
  }));
  await deps.vouchers.createMany(vouchers, now);
  return { batchId, codes, amount: input.amount, count: input.count, expiresAt, note, createdAt: now };
}

/** The idempotency key of a voucher's top-up: one ledger entry per voucher. */
export const voucherTopUpKey = (voucherId: string) => `voucher:${voucherId}`;

/**
 * Redeems a code into the account's wallet: the voucher is claimed in one conditional write (of
 * concurrent redemptions one wins), then credited through the ledger keyed by the voucher. 404
 * `voucher_not_found` for an unknown or expired code, 409 `voucher_used` for a used one. A holder
 * who claimed it but whose credit failed (a passing fault) is credited when redeeming again.
 */
export async function redeemVoucher(
  deps: { vouchers: Pick<VouchersRepository, 'redeem'>; billing: Pick<Billing, 'topUp'>; clock: () => Date },
  input: { accountId: string; code: string },
): Promise<{ amount: number; balanceMicros: bigint }> {
  const outcome = await deps.vouchers.redeem(voucherCodeHash(input.code), input.accountId, deps.clock());
  if (outcome.outcome === 'not_found') throw selfServeErrors.voucherNotFound();
  const { voucher } = outcome;
  const credit = () =>
    deps.billing.topUp({
      accountId: input.accountId,
      amountMicros: BigInt(voucher.amountToman) * MICROS_PER_TOMAN,
      reference: `voucher ${voucher.id}`,
      idempotencyKey: voucherTopUpKey(voucher.id),
    });
  if (outcome.outcome === 'used') {
    if (voucher.redeemedBy !== input.accountId) throw selfServeErrors.voucherUsed();
    // The same holder again: credited already (409), unless the first credit never landed.
    const replay = await credit();
    if (!replay.created) throw selfServeErrors.voucherUsed();
    return { amount: voucher.amountToman, balanceMicros: replay.balanceMicros };
  }
  const result = await credit();
  return { amount: voucher.amountToman, balanceMicros: result.balanceMicros };
}
