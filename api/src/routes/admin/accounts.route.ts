import type { FastifyInstance } from 'fastify';
import { accountFieldSchemas, parseEmail } from '../../../../shared/src/accounts/account-input.ts';
import type {
  AccountStatus,
  AccountsRepository,
} from '../../../../shared/src/accounts/accounts.repository.ts';
import type { KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import { requireAdminToken } from '../../plugins/admin-auth.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import { createAccount } from '../../use-cases/create-account.ts';
import { type BalanceOf, getAccount } from '../../use-cases/get-account.ts';
import { updateAccount } from '../../use-cases/update-account.ts';
import { accountSchema, adminErrorResponses, idParamsSchema, toAccountView } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

/** What the account routes need; registered under the `/admin/v1` prefix. */
export interface AdminAccountsRouteOptions {
  /** Without a token the routes answer 404 (the operator API does not exist). */
  readonly adminToken: string | undefined;
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

/** Operator API: open, read and (de)activate accounts. */
export async function adminAccountsRoutes(
  app: FastifyInstance,
  options: AdminAccountsRouteOptions,
): Promise<void> {
  requireAdminToken(app, options.adminToken);
  app.setValidatorCompiler(strictValidatorCompiler);
  const deps = { ...options, clock: options.clock ?? (() => new Date()) };

  app.post<{ Body: { email: string; name?: string | null } }>(
    '/accounts',
    {
      schema: {
        body: createBodySchema,
        response: { 201: accountSchema, 409: errorSchema, ...adminErrorResponses },
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
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['email'],
          properties: { email: accountFieldSchemas.email },
        },
        response: {
          200: {
            type: 'object',
            required: ['object', 'data'],
            properties: { object: { const: 'list' }, data: { type: 'array', items: accountSchema } },
          },
          ...adminErrorResponses,
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
    { schema: { params: idParamsSchema, response: { 200: accountSchema, ...adminErrorResponses } } },
    async (request) => toAccountView(await getAccount(deps, { accountId: request.params.id })),
  );

  app.patch<{ Params: IdParams; Body: { status: AccountStatus } }>(
    '/accounts/:id',
    {
      schema: {
        params: idParamsSchema,
        body: updateBodySchema,
        response: { 200: accountSchema, ...adminErrorResponses },
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
