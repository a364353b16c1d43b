import type { FastifyInstance } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import type { Billing } from '../../../../shared/src/billing/billing.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { exactAmountMicros, registerExactAmountParser } from '../../plugins/exact-amount-json.ts';
import { toLedgerEntryView } from '../../schemas/ledger-entry.schema.ts';
import { type TopUpRequest, topUpBodySchema, topUpHeadersSchema } from '../../schemas/top-up.schema.ts';
import { topUpAccount } from '../../use-cases/top-up-account.ts';
import { idParamsSchema, ledgerListSchema, topUpSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

export interface WalletRouteOptions extends AdminAuth {
  readonly billing: Pick<Billing, 'topUp' | 'listLedger'>;
  /** Accounts belong to the accounts module; the wallet routes only ask whether one exists. */
  readonly accountExists: (accountId: string) => Promise<boolean>;
}

const ledgerQuerySchema = {
  type: 'object',
  // 1 to 500, as text: the admin validator never coerces.
  properties: {
    limit: {
      type: 'string',
      pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$',
      description: 'How many entries, 1 to 500 (default 50).',
    },
  },
} as const;

const tags = ['Operator: wallet'];
const notFound = { 404: '`account_not_found`, or no operator API (`ADMIN_TOKEN` unset).' } as const;

interface LedgerRequest {
  Params: { id: string };
  Querystring: { limit?: string };
}

/** The operator's wallet routes: top-ups and the ledger of an account (prefix `/admin/v1`). */
export async function walletRoutes(app: FastifyInstance, options: WalletRouteOptions): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  registerExactAmountParser(app);

  app.post<TopUpRequest>(
    '/accounts/:id/topups',
    {
      schema: {
        tags,
        operationId: 'topUpAccount',
        summary: 'Credit a wallet',
        description:
          'The amount is taken exactly as written (at most 6 decimals). A top-up repeated with the same `Idempotency-Key` credits once and answers the first one’s entry again.',
        params: idParamsSchema,
        headers: topUpHeadersSchema,
        body: topUpBodySchema,
        response: {
          201: jsonResponse('The top-up’s ledger entry and the new balance.', topUpSchema, {
            'Idempotent-Replayed': {
              description: '`true` when this answers an earlier top-up with the same `Idempotency-Key`.',
              schema: { const: 'true' },
            },
          }),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            ...notFound,
            409: 'The `Idempotency-Key` was used for a top-up of another amount or reference.',
          }),
        },
      },
    },
    async (request, reply) => {
      const result = await topUpAccount(options, {
        accountId: request.params.id,
        amountMicros: exactAmountMicros(request.body),
        reference: request.body.reference,
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (!result.created) reply.header('idempotent-replayed', 'true');
      return reply
        .code(201)
        .send({ entry: toLedgerEntryView(result.entry), balance: microsToIrt(result.balanceMicros) });
    },
  );

  app.get<LedgerRequest>(
    '/accounts/:id/ledger',
    {
      schema: {
        tags,
        operationId: 'listLedger',
        summary: 'An account’s ledger',
        params: idParamsSchema,
        querystring: ledgerQuerySchema,
        response: {
          200: jsonResponse('The entries, newest first.', ledgerListSchema),
          ...errorResponses(OPERATOR, notFound),
        },
      },
    },
    async (request) => {
      const accountId = request.params.id;
      if (!(await options.accountExists(accountId))) throw accountErrors.accountNotFound(accountId);
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      const entries = await options.billing.listLedger(accountId, { limit });
      return { object: 'list', data: entries.map(toLedgerEntryView) };
    },
  );
}
