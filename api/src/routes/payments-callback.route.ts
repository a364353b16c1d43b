import type { FastifyInstance } from 'fastify';
import type { SettlementDeps } from '../../../shared/src/payments/payment-settlement.ts';
import { handlePaymentCallback } from '../use-cases/self-serve/payment-callback.ts';
import { ZARINPAL_CALLBACK_PATH } from '../use-cases/self-serve/start-payment.ts';

export interface PaymentsCallbackOptions {
  readonly settlement: SettlementDeps | undefined;
  readonly publicBaseUrl: string | undefined;
}

/**
 * Zarinpal sends the payer's browser back here (`?Authority=…&Status=OK|NOK`): no session is
 * needed, the payment is found by its authority and verified with the gateway; the answer is a 303
 * to the console's wallet page with the result in its query (`payment`, `id`, `reason`).
 */
export async function paymentsCallbackRoutes(
  app: FastifyInstance,
  options: PaymentsCallbackOptions,
): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>(ZARINPAL_CALLBACK_PATH, async (request, reply) => {
    const result = await handlePaymentCallback(options.settlement, request.query);
    request.log.info(
      { paymentId: result.id, result: result.payment, reason: result.reason },
      'zarinpal callback',
    );
    const query = new URLSearchParams({ payment: result.payment });
    if (result.id !== null) query.set('id', result.id);
    if (result.reason !== null) query.set('reason', result.reason);
    return reply
      .code(303)
      .header('cache-control', 'no-store')
      .header('location', `${options.publicBaseUrl ?? ''}/console/wallet?${query.toString()}`)
      .send();
  });
}
