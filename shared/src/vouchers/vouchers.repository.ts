import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * Prepaid vouchers (docs/payments.md, "Vouchers"): a code worth an amount, redeemed once into the
 * redeeming account's wallet. Only the SHA-256 of a code is stored; the code is shown once.
 */
export interface VoucherRecord {
  readonly id: string;
  /** The vouchers made by one call share it. */
  readonly batchId: string;
  readonly codeHash: string;
  /** Whole Toman. */
  readonly amountToman: number;
  readonly note: string | null;
  readonly expiresAt: Date | null;
  readonly createdAt: Date;
  readonly redeemedAt: Date | null;
  readonly redeemedBy: string | null;
}

export type NewVoucher = Omit<VoucherRecord, 'redeemedAt' | 'redeemedBy' | 'createdAt'>;

export type RedeemOutcome =
  | { readonly outcome: 'redeemed'; readonly voucher: VoucherRecord }
  | { readonly outcome: 'used'; readonly voucher: VoucherRecord }
  | { readonly outcome: 'not_found' };

export interface VouchersRepository {
  createMany(vouchers: readonly NewVoucher[], now: Date): Promise<void>;
  /**
   * Marks the voucher of this code redeemed by the account, in one conditional write: of concurrent
   * redemptions one wins (`redeemed`), the others answer `used`. Unknown and expired codes
   * (expired at `now`) answer `not_found`.
   */
  redeem(codeHash: string, accountId: string, now: Date): Promise<RedeemOutcome>;
  /** Vouchers newest first, a page of at most `limit`; `used` filters used (true) or unused (false). */
  list(query: { limit: number; used?: boolean }): Promise<VoucherRecord[]>;
}

/** A new voucher (or batch) id: the prefix and 24 hex characters of randomness. */
export function newVoucherId(prefix: 'vch' | 'vbt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

// Crockford's base32 without I, L, O, U: nothing to misread when typed from paper.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A new code: 16 characters of base32 (80 bits) in groups of four, `XXXX-XXXX-XXXX-XXXX`. */
export function newVoucherCode(): string {
  let code = '';
  for (let i = 0; i < 16; i += 1) {
    if (i > 0 && i % 4 === 0) code += '-';
    code += ALPHABET[randomInt(ALPHABET.length)];
  }
  return code;
}

/** The code as stored: upper case, without spaces or dashes, then SHA-256 (hex). */
export function voucherCodeHash(code: string): string {
  const normalized = code.toUpperCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(normalized).digest('hex');
}
