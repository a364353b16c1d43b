import { type SettlementDeps, verifyAndSettle } from '../../../../shared/src/payments/payment-settlement.ts';
import { AUTHORITY } from '../../../../shared/src/payments/zarinpal-client.ts';

/** What the wallet page is told after the gateway's callback (query `payment`, `id`, `reason`). */
export interface CallbackResult {
  readonly payment: 'paid' | 'failed' | 'pending';
  readonly id: string | null;
  readonly reason: string | null;
}

/**
 * The gateway's callback (`?Authority=…&Status=OK|NOK`), with no session: `OK` verifies with the
 * stored amount and credits once (verifyAndSettle); `NOK` fails a pending payment (`cancelled`); an
 * unknown authority or a callback without one changes nothing. Never credits but through verify.
 */
export async function handlePaymentCallback(
  settlement: SettlementDeps | undefined,
  query: { Authority?: unknown; Status?: unknown },
): Promise<CallbackResult> {
  if (settlement === undefined) return { payment: 'failed', id: null, reason: 'payments_disabled' };
  const authority = typeof query.Authority === 'string' ? query.Authority : '';
  if (!AUTHORITY.test(authority)) return { payment: 'failed', id: null, reason: 'unknown_authority' };
  const payment = await settlement.payments.findByAuthority(authority);
  if (payment === null) return { payment: 'failed', id: null, reason: 'unknown_authority' };
  if (payment.status === 'paid') return { payment: 'paid', id: payment.id, reason: null };
  if (query.Status !== 'OK') {
    const failed = await settlement.payments.markFailed(payment.id, 'cancelled', settlement.clock());
    const now = failed ?? (await settlement.payments.findById(payment.id)) ?? payment;
    return { payment: now.status, id: now.id, reason: now.reason ?? 'cancelled' };
  }
  const settled = await verifyAndSettle(settlement, payment);
  return {
    payment: settled.status,
    id: settled.id,
    reason: settled.status === 'paid' ? null : settled.reason,
  };
}
