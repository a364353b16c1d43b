import type { FastifyInstance } from 'fastify';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { errorSchema } from '../schemas/model.schema.ts';

export interface BalanceRouteDeps {
  readonly billing: Pick<Billing, 'balanceOf' | 'minRequiredMicros'>;
}

const balanceSchema = {
  type: 'object',
  required: ['object', 'currency', 'balance', 'min_required'],
  properties: {
    object: { type: 'string', const: 'balance' },
    currency: { type: 'string', const: 'IRT' },
    balance: { type: 'number' },
    min_required: { type: 'number' },
  },
} as const;

/** `GET /v1/balance`: the account's API wallet, in Toman (holds of requests in flight not deducted). */
export async function balanceRoutes(app: FastifyInstance, deps: BalanceRouteDeps): Promise<void> {
  app.get(
    '/v1/balance',
    { schema: { response: { 200: balanceSchema, '4xx': errorSchema } } },
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
