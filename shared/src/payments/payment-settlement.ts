import type { Billing } from '../billing/billing.ts';
import type { Logger } from '../logging/logger.ts';
import type { PaymentRecord, PaymentsRepository } from './payments.repository.ts';
import { type ZarinpalClient, ZarinpalUnavailable } from './zarinpal-client.ts';

/** One µIRT per millionth of a Toman: the wallet counts µIRT, the gateway whole Toman. */
export const MICROS_PER_TOMAN = 1_000_000n;

/** A pending payment is verified by the reconciler once this old (the payer closed the tab). */
export const RECONCILE_AFTER_MS = 15 * 60 * 1000;
/** A pending payment the gateway still does not confirm this long after it began is failed. */
export const EXPIRE_AFTER_MS = 24 * 3600 * 1000;

export interface SettlementDeps {
  readonly payments: PaymentsRepository;
  readonly zarinpal: ZarinpalClient;
  readonly billing: Pick<Billing, 'topUp'>;
  readonly clock: () => Date;
  readonly logger: Logger;
}

/** The idempotency key of a payment's top-up: one ledger entry per gateway authority. */
export function paymentTopUpKey(authority: string): string {
  return `zarinpal:${authority}`;
}

/** Why a verify refused, as stored on the payment and shown to the holder. */
export function verifyFailureReason(code: number): string {
  switch (code) {
    case -50:
      return 'amount_mismatch';
    case -51:
      return 'not_paid';
    case -53:
      return 'wrong_merchant';
    case -54:
      return 'invalid_authority';
    case -55:
      return 'not_found';
    default:
      return `gateway_error_${Math.abs(code)}`;
  }
}

/**
 * Verifies a payment with the gateway (with the stored amount) and, on 100 or 101, credits the wallet
 * and marks it paid. The credit goes through the ledger with the authority as idempotency key, and
 * the row moves to paid conditionally: however often and concurrently this runs for one payment,
 * the wallet is credited once. A refusal fails a pending payment with its reason; a gateway that
 * does not answer leaves it pending (the reconciler tries again). Answers the payment as it is now.
 */
export async function verifyAndSettle(deps: SettlementDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  if (payment.status === 'paid' || payment.authority === null) return payment;
  const authority = payment.authority;
  let outcome: Awaited<ReturnType<ZarinpalClient['verify']>>;
  try {
    outcome = await deps.zarinpal.verify({ amountToman: payment.amountToman, authority });
  } catch (err) {
    if (!(err instanceof ZarinpalUnavailable)) throw err;
    deps.logger.warn(
      { paymentId: payment.id, err },
      'zarinpal verify did not answer; the payment stays pending',
    );
    return (await deps.payments.noteReason(payment.id, 'gateway_unavailable', deps.clock())) ?? payment;
  }
  if (!outcome.ok) {
    const reason = verifyFailureReason(outcome.code);
    deps.logger.info({ paymentId: payment.id, code: outcome.code }, 'zarinpal refused the verify');
    return (
      (await deps.payments.markFailed(payment.id, reason, deps.clock())) ?? (await reread(deps, payment))
    );
  }
  await deps.billing.topUp({
    accountId: payment.accountId,
    amountMicros: BigInt(payment.amountToman) * MICROS_PER_TOMAN,
    reference: `zarinpal ${outcome.refId}`,
    idempotencyKey: paymentTopUpKey(authority),
  });
  const paid = await deps.payments.markPaid(
    payment.id,
    { refId: outcome.refId, cardPan: outcome.cardPan },
    deps.clock(),
  );
  if (paid !== null)
    deps.logger.info({ paymentId: paid.id, refId: outcome.refId }, 'payment verified and credited');
  return paid ?? (await reread(deps, payment));
}

async function reread(deps: SettlementDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  return (await deps.payments.findById(payment.id)) ?? payment;
}

/**
 * One pass of the reconciler: payments still pending after 15 minutes are asked about (inquiry) and
 * verified when paid; those without an authority (the request never answered), refused, or still
 * unconfirmed a day after they began are failed. Safe on every replica at once.
 */
export async function reconcilePayments(deps: SettlementDeps, limit = 100): Promise<PaymentRecord[]> {
  const now = deps.clock();
  const pending = await deps.payments.listPending(new Date(now.getTime() - RECONCILE_AFTER_MS), limit);
  const results: PaymentRecord[] = [];
  for (const payment of pending) {
    try {
      results.push(await reconcileOne(deps, payment, now));
    } catch (err) {
      deps.logger.error({ err, paymentId: payment.id }, 'reconciling a payment failed');
    }
  }
  return results;
}

async function reconcileOne(deps: SettlementDeps, payment: PaymentRecord, now: Date): Promise<PaymentRecord> {
  const expired = now.getTime() - payment.createdAt.getTime() >= EXPIRE_AFTER_MS;
  const fail = async (reason: string) => (await deps.payments.markFailed(payment.id, reason, now)) ?? payment;
  if (payment.authority === null) return fail(payment.reason ?? 'gateway_unavailable');
  let status: string;
  try {
    const inquiry = await deps.zarinpal.inquiry(payment.authority);
    status = inquiry.ok ? inquiry.status : `error ${inquiry.code}`;
  } catch (err) {
    if (!(err instanceof ZarinpalUnavailable)) throw err;
    return expired ? fail('expired') : payment;
  }
  if (status === 'PAID' || status === 'VERIFIED') return verifyAndSettle(deps, payment);
  if (status === 'FAILED') return fail('not_paid');
  if (status === 'REVERSED') return fail('reversed');
  return expired ? fail('expired') : payment;
}

/** Runs `reconcilePayments` every `intervalMs` in the background; returns the function that stops it. */
export function startPaymentReconciler(deps: SettlementDeps, intervalMs = 60_000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reconcilePayments(deps)
      .catch((err: unknown) => deps.logger.error({ err }, 'reconciling payments failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
