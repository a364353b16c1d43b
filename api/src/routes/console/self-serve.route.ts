import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { mailLanguageOf } from '../../../../shared/src/mail/mail-templates.ts';
import { guardConsoleRoutes, requireHolderAccount } from '../../console/console-auth.ts';
import { PASSWORD_LIMITS } from '../../console/password-hasher.ts';
import { publicOrigin } from '../../console/public-origin.ts';
import { sessionTokenOf, setSessionCookie } from '../../console/session-cookie.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import {
  createdPaymentSchema,
  createdVouchersSchema,
  createVouchersBodySchema,
  paymentListSchema,
  toCreatedVouchersView,
  toPaymentView,
  toVoucherView,
  voucherListQuerySchema,
  voucherListSchema,
} from '../../schemas/payment.schema.ts';
import { forgotPassword } from '../../use-cases/self-serve/forgot-password.ts';
import { signUp } from '../../use-cases/self-serve/sign-up.ts';
import { startPayment } from '../../use-cases/self-serve/start-payment.ts';
import { verifySignUp } from '../../use-cases/self-serve/verify-sign-up.ts';
import { createVouchers, redeemVoucher } from '../../use-cases/self-serve/vouchers.ts';
import {
  consoleErrorResponses,
  sessionSchema,
  toBillingCalendarView,
  toSessionView,
} from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

const responses = (ok: Record<number, object>) => ({ ...ok, ...consoleErrorResponses }) as const;
const accepted = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' } },
} as const;

const signUpBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: PASSWORD_LIMITS.maxLength },
    name: { type: ['string', 'null'], maxLength: 100 },
  },
} as const;
const verifyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const forgotBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email: { type: 'string', maxLength: 254 } },
} as const;
const paymentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: { amount: { type: 'number' } },
} as const;
const redeemBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
} as const;

/** The settings the wallet and sign-up pages read: whether sign-up and top-ups are open. */
const settingsSchema = {
  type: 'object',
  required: ['sign_up', 'payments'],
  properties: {
    sign_up: { type: 'string', enum: ['open', 'invite'] },
    payments: {
      type: 'object',
      required: ['enabled', 'min', 'max', 'presets'],
      properties: {
        enabled: { type: 'boolean' },
        min: { type: 'integer' },
        max: { type: 'integer' },
        presets: { type: 'array', items: { type: 'integer' } },
      },
    },
  },
} as const;

const languageOf = (request: FastifyRequest) => mailLanguageOf(request.headers['accept-language']);

/** Sign-up, its verification link and the forgotten-password mail: no session (docs/console.md). */
export async function signUpRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'anyone',
  );
  const { selfServe, console: services } = deps;
  const origin = (request: FastifyRequest) => publicOrigin(request, deps.config.publicBaseUrl);

  app.get('/self-serve', { schema: { response: responses({ 200: settingsSchema }) } }, async () => {
    const { minToman, maxToman } = selfServe.limits;
    const presets = [50_000, 100_000, 200_000, 500_000, 1_000_000].filter(
      (p) => p >= minToman && p <= maxToman,
    );
    return {
      sign_up: selfServe.signupMode,
      payments: { enabled: selfServe.settlement !== undefined, min: minToman, max: maxToman, presets },
    };
  });

  app.post<{ Body: { email: string; password: string; name?: string | null } }>(
    '/sign-up',
    { schema: { body: signUpBody, response: responses({ 202: accepted }) } },
    async (request, reply) => {
      await signUp(
        { ...selfServe, ...services, limiter: selfServe.signUpLimiter, accounts: deps.accounts.accounts },
        { ...request.body, ip: request.ip, language: languageOf(request), origin: origin(request) },
      );
      return reply.code(202).send({ status: 'check_your_mail' });
    },
  );

  app.post<{ Body: { token: string } }>(
    '/sign-up/verify',
    { schema: { body: verifyBody, response: responses({ 200: sessionSchema }) } },
    async (request, reply) => {
      const opened = await verifySignUp(
        {
          ...selfServe,
          ...services,
          accounts: deps.accounts.accounts,
          clock: deps.accounts.clock,
        },
        { token: request.body.token, ip: request.ip },
      );
      request.log.info({ accountId: opened.account.id }, 'console sign-up verified; account opened');
      const previous = sessionTokenOf(request);
      if (previous !== undefined) await services.sessions.end(previous);
      setSessionCookie(request, reply, opened.token);
      return toSessionView(
        opened.session,
        opened.account,
        toBillingCalendarView(deps.config.billing.timeZone, deps.accounts.clock()),
      );
    },
  );

  app.post<{ Body: { email: string } }>(
    '/password/forgot',
    { schema: { body: forgotBody, response: responses({ 202: accepted }) } },
    async (request, reply) => {
      await forgotPassword(
        {
          ...selfServe,
          ...services,
          limiter: selfServe.forgotLimiter,
          accounts: deps.accounts.accounts,
          clock: deps.accounts.clock,
        },
        { email: request.body.email, ip: request.ip, language: languageOf(request), origin: origin(request) },
      );
      return reply.code(202).send({ status: 'check_your_mail' });
    },
  );
}

/** A holder's top-ups through the gateway and voucher redemption. */
export async function holderPaymentsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );
  const { selfServe } = deps;

  app.post<{ Body: { amount: number } }>(
    '/payments',
    {
      schema: {
        body: paymentBody,
        response: responses({ 201: createdPaymentSchema, 502: errorSchema, 503: errorSchema }),
      },
    },
    async (request, reply) => {
      const account = requireHolderAccount(request);
      const started = await startPayment(selfServe, {
        accountId: account.id,
        email: account.email,
        amount: request.body.amount,
        origin: publicOrigin(request, deps.config.publicBaseUrl),
      });
      request.log.info({ accountId: account.id, paymentId: started.payment.id }, 'payment started');
      return reply.code(201).send({
        id: started.payment.id,
        amount: started.payment.amountToman,
        status: 'pending',
        redirect_url: started.redirectUrl,
        created: started.payment.createdAt.toISOString(),
      });
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/payments',
    { schema: { querystring: listQuery, response: responses({ 200: paymentListSchema }) } },
    async (request) => {
      const account = requireHolderAccount(request);
      const payments = await selfServe.payments.listByAccount(account.id, request.query.limit);
      return { data: payments.map(toPaymentView) };
    },
  );

  app.post<{ Body: { code: string } }>(
    '/vouchers/redeem',
    {
      schema: {
        body: redeemBody,
        response: responses({
          200: {
            type: 'object',
            required: ['amount', 'balance'],
            properties: { amount: { type: 'integer' }, balance: { type: 'number' } },
          },
          409: errorSchema,
        }),
      },
    },
    async (request) => {
      const account = requireHolderAccount(request);
      const redeemed = await redeemVoucher(
        { vouchers: selfServe.vouchers, billing: deps.billing, clock: deps.accounts.clock },
        { accountId: account.id, code: request.body.code },
      );
      request.log.info({ accountId: account.id, amount: redeemed.amount }, 'voucher redeemed');
      return { amount: redeemed.amount, balance: microsToIrt(redeemed.balanceMicros) };
    },
  );
}

/** Operators: vouchers (create, list) and an account's payments. */
export async function operatorSelfServeRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  const { selfServe } = deps;
  const clock = deps.accounts.clock;

  app.post<{ Body: { amount: number; count: number; expires_at?: string | null; note?: string | null } }>(
    '/vouchers',
    { schema: { body: createVouchersBodySchema, response: responses({ 201: createdVouchersSchema }) } },
    async (request, reply) => {
      const { amount, count, expires_at: expiresAt, note } = request.body;
      const created = await createVouchers(
        { vouchers: selfServe.vouchers, clock },
        { amount, count, expiresAt, note },
      );
      request.log.info({ batchId: created.batchId, count, amount }, 'vouchers created');
      return reply.code(201).send(toCreatedVouchersView(created));
    },
  );

  app.get<{ Querystring: { status?: 'used' | 'unused'; limit?: string } }>(
    '/vouchers',
    { schema: { querystring: voucherListQuerySchema, response: responses({ 200: voucherListSchema }) } },
    async (request) => {
      const { status, limit } = request.query;
      const vouchers = await selfServe.vouchers.list({
        limit: limit === undefined ? 200 : Number(limit),
        ...(status === undefined ? {} : { used: status === 'used' }),
      });
      const now = clock();
      return { object: 'list', data: vouchers.map((v) => toVoucherView(v, now)) };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit: number } }>(
    '/accounts/:id/payments',
    { schema: { querystring: listQuery, response: responses({ 200: paymentListSchema }) } },
    async (request) => {
      const { id } = request.params;
      if ((await deps.accounts.accounts.findById(id)) === null) throw accountErrors.accountNotFound(id);
      const payments = await selfServe.payments.listByAccount(id, request.query.limit);
      return { data: payments.map(toPaymentView) };
    },
  );
}
