import type { FastifyInstance } from 'fastify';
import { toUsageRow } from '../../../../shared/src/billing/list-usage.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { usageRowSchema } from '../../schemas/usage-row.schema.ts';
import { consoleOverview } from '../../use-cases/console-overview.ts';
import { consoleErrorResponses } from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

const overviewQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', enum: [7, 30, 90], default: 30 } },
} as const;

const overviewSchema = {
  type: 'object',
  required: [
    'currency',
    'balance',
    'min_required',
    'month',
    'spent_this_month',
    'from',
    'to',
    'daily',
    'top_keys',
  ],
  properties: {
    currency: { type: 'string', enum: ['IRT'] },
    balance: { type: 'number' },
    min_required: { type: 'number' },
    month: { type: 'string' },
    spent_this_month: { type: 'number' },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    daily: { type: 'array', items: usageRowSchema },
    top_keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'last4', 'spent'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          last4: { type: 'string' },
          spent: { type: 'number' },
        },
      },
    },
  },
} as const;

/** `GET /overview?days=7|30|90`: the holder's home page. */
export async function overviewRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );

  app.get<{ Querystring: { days: 7 | 30 | 90 } }>(
    '/overview',
    { schema: { querystring: overviewQuery, response: { 200: overviewSchema, ...consoleErrorResponses } } },
    async (request) => {
      const account = requireHolderAccount(request);
      const overview = await consoleOverview(
        {
          billing: deps.billing,
          money: deps.console.money,
          keys: deps.accounts.keys,
          timeZone: deps.config.billing.timeZone,
          clock: deps.accounts.clock,
        },
        { accountId: account.id, days: request.query.days },
      );
      return {
        currency: 'IRT',
        balance: microsToIrt(overview.balanceMicros),
        min_required: microsToIrt(overview.minRequiredMicros),
        month: overview.month,
        spent_this_month: microsToIrt(overview.spentThisMonthMicros),
        from: overview.from,
        to: overview.to,
        daily: overview.daily.map(toUsageRow),
        top_keys: overview.topKeys.map(({ key, spentMicros }) => ({
          id: key.id,
          name: key.name,
          last4: key.last4,
          spent: microsToIrt(spentMicros),
        })),
      };
    },
  );
}
