import type { FastifyInstance } from 'fastify';
import { accountFieldSchemas, parseEmail } from '../../../../shared/src/accounts/account-input.ts';
import type {
  AccountStatus,
  AccountsRepository,
} from '../../../../shared/src/accounts/accounts.repository.ts';
import type { KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import { errorResponses, jsonResponse, OPERATOR, WITH_BODY } from '../../openapi/responses.ts';
import { type AdminAuth, requireAdminToken } from '../../plugins/admin-auth.ts';
import { createAccount } from '../../use-cases/create-account.ts';
import { type BalanceOf, getAccount } from '../../use-cases/get-account.ts';
import { updateAccount } from '../../use-cases/update-account.ts';
import { accountListSchema, accountSchema, idParamsSchema, toAccountView } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

/** What the account routes need; registered under the `/admin/v1` prefix. */
export interface AdminAccountsRouteOptions extends AdminAuth {
  readonly accounts: AccountsRepository;
  readonly keyCache: Pick<KeyCache, 'invalidateAccount'>;
  /** The account's wallet balance in µIRT (owned by the billing module). */
  readonly balanceOf: BalanceOf;
  readonly clock?: () => Date;
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
  required: ['status'],
  properties: { status: accountFieldSchemas.status },
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
      return reply.code(201).send(toAccountView(created));
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
      return { object: 'list', data: found.map(toAccountView) };
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
    async (request) => toAccountView(await getAccount(deps, { accountId: request.params.id })),
  );

  app.patch<{ Params: IdParams; Body: { status: AccountStatus } }>(
    '/accounts/:id',
    {
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Activate or deactivate an account',
        description: 'An inactive account’s keys are refused (401) on every replica at once.',
        params: idParamsSchema,
        body: updateBodySchema,
        response: {
          200: jsonResponse('The account.', accountSchema),
          ...errorResponses([...OPERATOR, ...WITH_BODY], notFound),
        },
      },
    },
    async (request) => {
      const updated = await updateAccount(deps, {
        accountId: request.params.id,
        status: request.body.status,
      });
      request.log.info(
        { accountId: updated.account.id, status: updated.account.status },
        'account status set',
      );
      return toAccountView(updated);
    },
  );
}
