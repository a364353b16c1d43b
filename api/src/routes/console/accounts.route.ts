import type { FastifyInstance } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import { accountFieldSchemas } from '../../../../shared/src/accounts/account-input.ts';
import type { AccountStatus } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { InvitationPurpose } from '../../../../shared/src/accounts/credentials.repository.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { guardConsoleRoutes } from '../../console/console-auth.ts';
import { publicOrigin } from '../../console/public-origin.ts';
import { exactAmountMicros, registerExactAmountParser } from '../../plugins/exact-amount-json.ts';
import { invitationBodySchema, invitationSchema, toInvitationView } from '../../schemas/invitation.schema.ts';
import { ledgerEntryWithUsageSchema, toLedgerEntryWithUsageView } from '../../schemas/ledger-entry.schema.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import {
  requiredTopUpHeadersSchema,
  type TopUpRequest,
  topUpBodySchema,
  topUpResponseSchema,
} from '../../schemas/top-up.schema.ts';
import { createAccount } from '../../use-cases/create-account.ts';
import { createInvitation } from '../../use-cases/create-invitation.ts';
import { getAccount } from '../../use-cases/get-account.ts';
import { searchAccounts } from '../../use-cases/search-accounts.ts';
import { topUpAccount } from '../../use-cases/top-up-account.ts';
import { updateAccount } from '../../use-cases/update-account.ts';
import { accountSchema, idParamsSchema, toAccountView } from '../admin/admin.schema.ts';
import {
  consoleErrorResponses,
  keyWithUseListSchema,
  type LedgerQuery,
  type UsageQuery,
} from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { keysWithUseOf } from './keys.route.ts';
import { ledgerRouteSchema, sendLedgerPage, sendUsageReport, usageRouteSchema } from './usage.route.ts';

type IdParams = { id: string };

const searchQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 254, default: '' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: { type: 'string', minLength: 1, maxLength: 400 },
  },
} as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email: accountFieldSchemas.email, name: accountFieldSchemas.name },
} as const;

const statusBody = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: accountFieldSchemas.status },
} as const;

const responses = (ok: Record<number, object>) => ({ ...ok, ...consoleErrorResponses }) as const;

/**
 * Operators' accounts: search, open (the answer carries the holder's invitation link), read,
 * (de)activate, top up, make a one-time link, and that account's keys, ledger and usage.
 */
export async function operatorAccountsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  registerExactAmountParser(app);
  const accounts = { ...deps.accounts, balanceOf: (id: string) => deps.billing.balanceOf(id) };
  const invitations = { ...deps.accounts, credentials: deps.console.credentials };
  const accountExists = async (id: string) => (await deps.accounts.accounts.findById(id)) !== null;
  const ensureAccount = async (id: string) => {
    if (!(await accountExists(id))) throw accountErrors.accountNotFound(id);
  };
  const topUps = { billing: deps.billing, accountExists };

  app.get<{ Querystring: { q: string; limit: number; cursor?: string } }>(
    '/accounts',
    {
      schema: {
        querystring: searchQuery,
        response: responses({
          200: {
            type: 'object',
            required: ['object', 'data', 'next'],
            properties: {
              object: { type: 'string', enum: ['list'] },
              data: { type: 'array', items: accountSchema },
              next: { type: ['string', 'null'] },
            },
          },
        }),
      },
    },
    async (request) => {
      const { q, limit, cursor } = request.query;
      const found = await searchAccounts(accounts, { query: q, limit, cursor });
      return { object: 'list', data: found.accounts.map(toAccountView), next: found.next };
    },
  );

  app.post<{ Body: { email: string; name?: string | null } }>(
    '/accounts',
    {
      schema: {
        body: createBody,
        response: responses({
          201: {
            type: 'object',
            required: ['account', 'invitation'],
            properties: { account: accountSchema, invitation: invitationSchema },
          },
          409: errorSchema,
        }),
      },
    },
    async (request, reply) => {
      const created = await createAccount(accounts, request.body);
      const invitation = await createInvitation(invitations, {
        accountId: created.account.id,
        purpose: 'invite',
        origin: publicOrigin(request, deps.config.publicBaseUrl),
      });
      request.log.info({ accountId: created.account.id }, 'console: account created');
      return reply
        .code(201)
        .send({ account: toAccountView(created), invitation: toInvitationView(invitation) });
    },
  );

  app.get<{ Params: IdParams }>(
    '/accounts/:id',
    { schema: { params: idParamsSchema, response: responses({ 200: accountSchema }) } },
    async (request) => toAccountView(await getAccount(accounts, { accountId: request.params.id })),
  );

  app.patch<{ Params: IdParams; Body: { status: AccountStatus } }>(
    '/accounts/:id',
    { schema: { params: idParamsSchema, body: statusBody, response: responses({ 200: accountSchema }) } },
    async (request) => {
      const updated = await updateAccount(accounts, {
        accountId: request.params.id,
        status: request.body.status,
      });
      request.log.info(
        { accountId: updated.account.id, status: updated.account.status },
        'console: account status set',
      );
      return toAccountView(updated);
    },
  );

  app.post<TopUpRequest>(
    '/accounts/:id/topups',
    {
      schema: {
        params: idParamsSchema,
        headers: requiredTopUpHeadersSchema,
        body: topUpBodySchema,
        response: responses({ 201: topUpResponseSchema(ledgerEntryWithUsageSchema), 409: errorSchema }),
      },
    },
    async (request, reply) => {
      const result = await topUpAccount(topUps, {
        accountId: request.params.id,
        amountMicros: exactAmountMicros(request.body),
        reference: request.body.reference,
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (!result.created) reply.header('idempotent-replayed', 'true');
      request.log.info({ accountId: request.params.id, entryId: result.entry.id }, 'console: top-up');
      return reply.code(201).send({
        entry: toLedgerEntryWithUsageView(result.entry),
        balance: microsToIrt(result.balanceMicros),
      });
    },
  );

  app.post<{ Params: IdParams; Body: { purpose?: InvitationPurpose } | undefined }>(
    '/accounts/:id/invitations',
    {
      schema: {
        params: idParamsSchema,
        body: invitationBodySchema,
        response: responses({ 201: invitationSchema }),
      },
    },
    async (request, reply) => {
      const invitation = await createInvitation(invitations, {
        accountId: request.params.id,
        purpose: request.body?.purpose ?? 'invite',
        origin: publicOrigin(request, deps.config.publicBaseUrl),
      });
      request.log.info({ accountId: request.params.id, purpose: invitation.purpose }, 'console: link made');
      return reply.code(201).send(toInvitationView(invitation));
    },
  );

  app.get<{ Params: IdParams }>(
    '/accounts/:id/keys',
    { schema: { params: idParamsSchema, response: responses({ 200: keyWithUseListSchema }) } },
    async (request) => keysWithUseOf(deps, request.params.id),
  );

  app.get<{ Params: IdParams; Querystring: LedgerQuery }>(
    '/accounts/:id/ledger',
    { schema: { params: idParamsSchema, ...ledgerRouteSchema } },
    async (request) => {
      await ensureAccount(request.params.id);
      return sendLedgerPage(deps, request.params.id, request.query);
    },
  );

  app.get<{ Params: IdParams; Querystring: UsageQuery }>(
    '/accounts/:id/usage',
    { schema: { params: idParamsSchema, ...usageRouteSchema } },
    async (request, reply) => {
      await ensureAccount(request.params.id);
      return sendUsageReport(deps, request.params.id, request, reply);
    },
  );
}
