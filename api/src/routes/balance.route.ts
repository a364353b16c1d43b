import type { FastifyInstance } from 'fastify';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { errorResponses, jsonResponse, KEYED, rateLimitHeaders } from '../openapi/responses.ts';
import { balanceSchema } from '../schemas/wallet.schema.ts';

export interface BalanceRouteDeps {
  readonly billing: Pick<Billing, 'balanceOf' | 'minRequiredMicros'>;
}

/** `GET /v1/balance`: the account's API wallet, in Toman (holds of requests in flight not deducted). */
export async function balanceRoutes(app: FastifyInstance, deps: BalanceRouteDeps): Promise<void> {
  app.get(
    '/v1/balance',
    {
      schema: {
        tags: ['Account'],
        operationId: 'getBalance',
        summary: 'The wallet balance',
        response: {
          200: jsonResponse('The account’s API wallet.', balanceSchema, rateLimitHeaders),
          ...errorResponses(KEYED),
        },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const balance = await deps.billing.balanceOf(key.accountId);
      return {
        object: 'balance',
        currency: 'IRT',
        balance: microsToIrt(balance),
        min_required: microsToIrt(deps.billing.minRequiredMicros),
      };
    },
  );
}
