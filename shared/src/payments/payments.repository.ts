import { randomBytes } from 'node:crypto';

/**
 * Wallet top-ups paid through a payment gateway (docs/payments.md): one row per attempt. A payment
 * starts `pending`, and moves once: to `paid` when the gateway verified it (the wallet is credited
 * through the ledger, keyed by the gateway's authority), or to `failed` with the reason.
 */
export type PaymentStatus = 'pending' | 'paid' | 'failed';

export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'paid', 'failed'];

export interface PaymentRecord {
  readonly id: string;
  readonly accountId: string;
  /** Whole Toman, as sent to the gateway. */
  readonly amountToman: number;
  readonly status: PaymentStatus;
  /** The gateway's `authority` of the payment session; null until the gateway answered. */
  readonly authority: string | null;
  /** The gateway's reference number of a verified payment. */
  readonly refId: number | null;
  /** The payer's card, masked by the gateway (`502229******5995`). */
  readonly cardPan: string | null;
  /** Why a payment failed (or why it is still pending after a gateway fault). */
  readonly reason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly paidAt: Date | null;
}

export interface NewPayment {
  readonly id: string;
  readonly accountId: string;
  readonly amountToman: number;
}

export interface PaymentsRepository {
  /** Stores a new pending payment without an authority yet. */
  create(payment: NewPayment, now: Date): Promise<PaymentRecord>;
  /** Sets the gateway's authority of a pending payment that has none; null otherwise. */
  setAuthority(id: string, authority: string, now: Date): Promise<PaymentRecord | null>;
  /** Notes why a pending payment is still pending (a gateway fault); null when it is not pending. */
  noteReason(id: string, reason: string, now: Date): Promise<PaymentRecord | null>;
  findById(id: string): Promise<PaymentRecord | null>;
  findByAuthority(authority: string): Promise<PaymentRecord | null>;
  /**
   * Moves a payment that is not paid yet to `paid`, in one conditional write: of concurrent calls
   * one answers the record, the others null (as does a payment already paid).
   */
  markPaid(
    id: string,
    paid: { refId: number; cardPan: string | null },
    now: Date,
  ): Promise<PaymentRecord | null>;
  /** Moves a pending payment to `failed` with the reason; null when it is not pending. */
  markFailed(id: string, reason: string, now: Date): Promise<PaymentRecord | null>;
  /** The account's payments, newest first. */
  listByAccount(accountId: string, limit: number): Promise<PaymentRecord[]>;
  /** Pending payments created before `createdBefore`, oldest first (the reconciler). */
  listPending(createdBefore: Date, limit: number): Promise<PaymentRecord[]>;
}

/** A new payment id: `pay_` and 24 hex characters of randomness. */
export function newPaymentId(): string {
  return `pay_${randomBytes(12).toString('hex')}`;
}
