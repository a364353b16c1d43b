import type { SettlementDeps } from '../../../../shared/src/payments/payment-settlement.ts';
import { newPaymentId, type PaymentRecord } from '../../../../shared/src/payments/payments.repository.ts';
import { ZarinpalUnavailable } from '../../../../shared/src/payments/zarinpal-client.ts';
import { selfServeErrors } from '../../self-serve/self-serve-errors.ts';

export interface StartPaymentDeps {
  readonly settlement: SettlementDeps | undefined;
  readonly limits: { readonly minToman: number; readonly maxToman: number };
}

export interface StartedPayment {
  readonly payment: PaymentRecord;
  readonly redirectUrl: string;
}

/** The path of the gateway's callback on the api (docs/payments.md). */
export const ZARINPAL_CALLBACK_PATH = '/payments/zarinpal/callback';

/**
 * Stores a pending payment and asks Zarinpal for a payment session (`currency: "IRT"`, the amount in
 * whole Toman, the callback on the api). 404 `payments_disabled` without `ZARINPAL_MERCHANT_ID`; 400
 * `amount_out_of_range` outside PAYMENT_MIN_TOMAN..PAYMENT_MAX_TOMAN; 502 `payment_gateway_error`
 * when the gateway refuses (the payment fails with its code), 503 `payment_gateway_unavailable`
 * when it does not answer (the payment stays pending without an authority; the reconciler fails it).
 */
export async function startPayment(
  deps: StartPaymentDeps,
  input: { accountId: string; email: string; amount: number; origin: string },
): Promise<StartedPayment> {
  const settlement = deps.settlement;
  if (settlement === undefined) throw selfServeErrors.paymentsDisabled();
  const { minToman, maxToman } = deps.limits;
  if (!Number.isSafeInteger(input.amount) || input.amount < minToman || input.amount > maxToman)
    throw selfServeErrors.amountOutOfRange(minToman, maxToman);
  const payment = await settlement.payments.create(
    { id: newPaymentId(), accountId: input.accountId, amountToman: input.amount },
    settlement.clock(),
  );
  let outcome: Awaited<ReturnType<SettlementDeps['zarinpal']['request']>>;
  try {
    outcome = await settlement.zarinpal.request({
      amountToman: input.amount,
      description: `Wallet top-up ${payment.id}`,
      callbackUrl: `${input.origin}${ZARINPAL_CALLBACK_PATH}`,
      email: input.email,
      orderId: payment.id,
    });
  } catch (err) {
    if (!(err instanceof ZarinpalUnavailable)) throw err;
    settlement.logger.warn({ paymentId: payment.id, err }, 'zarinpal payment request did not answer');
    await settlement.payments.noteReason(payment.id, 'gateway_unavailable', settlement.clock());
    throw selfServeErrors.gatewayUnavailable();
  }
  if (!outcome.ok) {
    await settlement.payments.markFailed(
      payment.id,
      `gateway_error_${Math.abs(outcome.code)}`,
      settlement.clock(),
    );
    throw selfServeErrors.gatewayRefused(outcome.code, outcome.message);
  }
  const withAuthority = await settlement.payments.setAuthority(
    payment.id,
    outcome.authority,
    settlement.clock(),
  );
  return {
    payment: withAuthority ?? payment,
    redirectUrl: settlement.zarinpal.startPayUrl(outcome.authority),
  };
}
