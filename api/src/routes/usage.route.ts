import type { FastifyInstance } from 'fastify';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { errorResponses, jsonResponse, KEYED, rateLimitHeaders } from '../openapi/responses.ts';
import { usageListSchema } from '../schemas/wallet.schema.ts';

export interface UsageRouteDeps {
  readonly billing: Pick<Billing, 'listUsage'>;
}

/**
 * `GET /v1/usage?days=`: one row per day and model over every key of the account, from rows kept
 * pre-aggregated at settlement (never a scan of request logs). Days are those of the billing zone.
 */
export async function usageRoutes(app: FastifyInstance, deps: UsageRouteDeps): Promise<void> {
  app.get<{ Querystring: { days: number } }>(
    '/v1/usage',
    {
      schema: {
        tags: ['Account'],
        operationId: 'listUsage',
        summary: 'Usage by day and model',
        querystring: {
          type: 'object',
          properties: {
            days: {
              type: 'integer',
              minimum: 1,
              maximum: 90,
              default: 30,
              description: 'How many billing days back, today included.',
            },
          },
        },
        response: {
          200: jsonResponse('The usage rows of those days.', usageListSchema, rateLimitHeaders),
          ...errorResponses(KEYED),
        },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const data = await deps.billing.listUsage(key.accountId, request.query.days);
      return { object: 'list', currency: 'IRT', data };
    },
  );
}
