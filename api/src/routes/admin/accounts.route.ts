import type { FastifyInstance } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import { accountFieldSchemas, parseEmail } from '../../../../shared/src/accounts/account-input.ts';
import type {
  AccountStatus,
  AccountsRepository,
} from '../../../../shared/src/accounts/accounts.repository.ts';
import type { KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { createAccount } from '../../use-cases/create-account.ts';
import { type AccountWithBalance, type BalanceOf, getAccount } from '../../use-cases/get-account.ts';
import { updateAccount } from '../../use-cases/update-account.ts';
import { accountListSchema, accountSchema, idParamsSchema, toAccountView } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';
import { priceMultiplierSchema } from './catalogue.schema.ts';

/** What the account routes need; registered under the `/admin/v1` prefix. */
export interface AdminAccountsRouteOptions extends AdminAuth {
  readonly accounts: AccountsRepository;
  readonly keyCache: Pick<KeyCache, 'invalidateAccount'>;
  /** The account's wallet balance in µIRT (owned by the billing module). */
  readonly balanceOf: BalanceOf;
  readonly clock?: () => Date;
  /** Price plans (the live catalogue's); without them no account shows or takes `price_multiplier`. */
  readonly pricePlans?: PricePlans;
}

/** The accounts' price multipliers, kept by the live catalogue. */
export interface PricePlans {
  multiplierOf(accountId: string): number;
  setMultiplier(accountId: string, multiplier: number): Promise<void>;
}

const createBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email: accountFieldSchemas.email, name: accountFieldSchemas.name },
} as const;

const updateBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { status: accountFieldSchemas.status, price_multiplier: priceMultiplierSchema },
} as const;

type IdParams = { id: string };

const tags = ['Operator: accounts'];
const notFound = { 404: '`account_not_found`, or no operator API (`ADMIN_TOKEN` unset).' } as const;

/** Operator API: open, read and (de)activate accounts. */
export async function adminAccountsRoutes(
  app: FastifyInstance,
  options: AdminAccountsRouteOptions,
): Promise<void> {
  requireAdminToken(app, options);
  app.setValidatorCompiler(strictValidatorCompiler);
  const deps = { ...options, clock: options.clock ?? (() => new Date()) };
  const plans = options.pricePlans;
  const accountView = (found: AccountWithBalance) => ({
    ...toAccountView(found),
    ...(plans && { price_multiplier: plans.multiplierOf(found.account.id) }),
  });

  app.post<{ Body: { email: string; name?: string | null } }>(
    '/accounts',
    {
      schema: {
        tags,
        operationId: 'createAccount',
        summary: 'Open an account',
        body: createBodySchema,
        response: {
          201: jsonResponse('The account, with an empty wallet.', accountSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], {
            404: 'No operator API (`ADMIN_TOKEN` unset).',
            409: '`account_exists`: an account has this email.',
          }),
        },
      },
    },
    async (request, reply) => {
      const created = await createAccount(deps, request.body);
      request.log.info({ accountId: created.account.id }, 'account created');
      return reply.code(201).send(accountView(created));
    },
  );

  app.get<{ Querystring: { email: string } }>(
    '/accounts',
    {
      schema: {
        tags,
        operationId: 'findAccount',
        summary: 'Find the account with an email',
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['email'],
          properties: { email: accountFieldSchemas.email },
        },
        response: {
          200: jsonResponse('The account with this email: a list of 0 or 1.', accountListSchema),
          ...errorResponses(OPERATOR, { 404: 'No operator API (`ADMIN_TOKEN` unset).' }),
        },
      },
    },
    async (request) => {
      // Exact look-up by email (compared in lower case, as stored): the account or an empty list.
      const account = await deps.accounts.findByEmail(parseEmail(request.query.email));
      const found = account === null ? [] : [await getAccount(deps, { accountId: account.id })];
      return { object: 'list', data: found.map(accountView) };
    },
  );

  app.get<{ Params: IdParams }>(
    '/accounts/:id',
    {
      schema: {
        tags,
        operationId: 'retrieveAccount',
        summary: 'Read an account',
        params: idParamsSchema,
        response: { 200: jsonResponse('The account.', accountSchema), ...errorResponses(OPERATOR, notFound) },
      },
    },
    async (request) => accountView(await getAccount(deps, { accountId: request.params.id })),
  );

  app.patch<{ Params: IdParams; Body: { status?: AccountStatus; price_multiplier?: number } }>(
    '/accounts/:id',
    {
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Activate or deactivate an account, or set its price plan',
        description:
          'An inactive account’s keys are refused (401) on every replica at once. `price_multiplier` (0.1 to 10) multiplies every price of the account’s later requests (holds and charges) on every replica within 2 s.',
        params: idParamsSchema,
        body: updateBodySchema,
        response: {
          200: jsonResponse('The account.', accountSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], notFound),
        },
      },
    },
    async (request) => {
      const { status, price_multiplier: multiplier } = request.body;
      if (status === undefined && multiplier === undefined)
        throw errors.invalidRequest('Invalid body: `status` or `price_multiplier` is required.');
      if (multiplier !== undefined) {
        if (plans === undefined) throw errors.invalidRequest('price_multiplier is not a known field.');
        if ((await deps.accounts.findById(request.params.id)) === null)
          throw accountErrors.accountNotFound(request.params.id);
        await plans.setMultiplier(request.params.id, multiplier);
        request.log.info(
          { accountId: request.params.id, priceMultiplier: multiplier },
          'account price plan set',
        );
      }
      if (status === undefined) return accountView(await getAccount(deps, { accountId: request.params.id }));
      const updated = await updateAccount(deps, { accountId: request.params.id, status });
      request.log.info(
        { accountId: updated.account.id, status: updated.account.status },
        'account status set',
      );
      return accountView(updated);
    },
  );
}
