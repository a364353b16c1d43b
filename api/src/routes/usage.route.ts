import type { FastifyInstance } from 'fastify';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { errorSchema } from '../schemas/model.schema.ts';
import { usageRowSchema } from '../schemas/usage-row.schema.ts';

export interface UsageRouteDeps {
  readonly billing: Pick<Billing, 'listUsage'>;
}

const usageListSchema = {
  type: 'object',
  required: ['object', 'currency', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    currency: { type: 'string', const: 'IRT' },
    data: { type: 'array', items: usageRowSchema },
  },
} as const;

/**
 * `GET /v1/usage?days=`: one row per day and model over every key of the account, from rows kept
 * pre-aggregated at settlement (never a scan of request logs). Days are those of the billing zone.
 */
export async function usageRoutes(app: FastifyInstance, deps: UsageRouteDeps): Promise<void> {
  app.get<{ Querystring: { days: number } }>(
    '/v1/usage',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 30 } },
        },
        response: { 200: usageListSchema, '4xx': errorSchema },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const data = await deps.billing.listUsage(key.accountId, request.query.days);
      return { object: 'list', currency: 'IRT', data };
    },
  );
}
