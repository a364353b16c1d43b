import type { FastifyInstance } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { PaymentsRepository } from '../../../../shared/src/payments/payments.repository.ts';
import type { VouchersRepository } from '../../../../shared/src/vouchers/vouchers.repository.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import {
  createdVouchersSchema,
  createVouchersBodySchema,
  paymentListSchema,
  toCreatedVouchersView,
  toPaymentView,
  toVoucherView,
  voucherListQuerySchema,
  voucherListSchema,
} from '../../schemas/payment.schema.ts';
import { createVouchers } from '../../use-cases/self-serve/vouchers.ts';
import { idParamsSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

export interface AdminVouchersOptions extends AdminAuth {
  readonly vouchers: VouchersRepository;
  readonly payments: Pick<PaymentsRepository, 'listByAccount'>;
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly clock: () => Date;
}

const tags = ['Operator: vouchers and payments'];

/** The operator's vouchers (create, list) and an account's gateway payments (prefix `/admin/v1`). */
export async function adminVouchersRoutes(
  app: FastifyInstance,
  options: AdminVouchersOptions,
): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);

  app.post<{ Body: { amount: number; count: number; expires_at?: string | null; note?: string | null } }>(
    '/vouchers',
    {
      schema: {
        tags,
        operationId: 'createVouchers',
        summary: 'Make vouchers',
        description:
          'Makes `count` vouchers worth `amount` Toman each. The codes are in this answer only: the gateway keeps their SHA-256. A holder redeems one in the console (`POST /console/api/vouchers/redeem`).',
        body: createVouchersBodySchema,
        response: {
          201: jsonResponse('The vouchers’ codes, shown this once.', createdVouchersSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            404: 'No operator API (`ADMIN_TOKEN` unset).',
          }),
        },
      },
    },
    async (request, reply) => {
      const { amount, count, expires_at: expiresAt, note } = request.body;
      const created = await createVouchers(options, { amount, count, expiresAt, note });
      request.log.info({ batchId: created.batchId, count, amount }, 'vouchers created');
      return reply.code(201).send(toCreatedVouchersView(created));
    },
  );

  app.get<{ Querystring: { status?: 'used' | 'unused'; limit?: string } }>(
    '/vouchers',
    {
      schema: {
        tags,
        operationId: 'listVouchers',
        summary: 'List vouchers',
        description: 'Newest first, used and unused (`status` filters), never with their codes.',
        querystring: voucherListQuerySchema,
        response: {
          200: jsonResponse('The vouchers.', voucherListSchema),
          ...errorResponses(OPERATOR, { 404: 'No operator API (`ADMIN_TOKEN` unset).' }),
        },
      },
    },
    async (request) => {
      const { status, limit } = request.query;
      const vouchers = await options.vouchers.list({
        limit: limit === undefined ? 200 : Number(limit),
        ...(status === undefined ? {} : { used: status === 'used' }),
      });
      const now = options.clock();
      return { object: 'list', data: vouchers.map((v) => toVoucherView(v, now)) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/accounts/:id/payments',
    {
      schema: {
        tags,
        operationId: 'listAccountPayments',
        summary: 'An account’s gateway payments',
        description:
          'Every top-up the account began through the payment gateway, newest first (at most 200).',
        params: idParamsSchema,
        response: {
          200: jsonResponse('The payments.', paymentListSchema),
          ...errorResponses(OPERATOR, {
            404: '`account_not_found`, or no operator API (`ADMIN_TOKEN` unset).',
          }),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      if ((await options.accounts.findById(id)) === null) throw accountErrors.accountNotFound(id);
      return { data: (await options.payments.listByAccount(id, 200)).map(toPaymentView) };
    },
  );
}
