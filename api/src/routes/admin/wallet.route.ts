import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountErrors } from '../../../../shared/src/accounts/account-errors.ts';
import type { Billing, LedgerEntry } from '../../../../shared/src/billing/billing.ts';
import { irtToMicros, microsToIrt } from '../../../../shared/src/billing/money.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { requireAdminToken } from '../../plugins/admin-auth.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import { adminErrorResponses, idParamsSchema } from './admin.schema.ts';
import { strictValidatorCompiler } from './admin-validation.ts';

export interface WalletRouteOptions {
  readonly billing: Pick<Billing, 'topUp' | 'listLedger'>;
  readonly adminToken: string | undefined;
  /** Accounts belong to the accounts module; the wallet routes only ask whether one exists. */
  readonly accountExists: (accountId: string) => Promise<boolean>;
}

const MAX_TOP_UP_IRT = 1_000_000_000_000;

const topUpBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'number', exclusiveMinimum: 0, maximum: MAX_TOP_UP_IRT },
    reference: { type: 'string', maxLength: 200 },
  },
} as const;

const topUpHeadersSchema = {
  type: 'object',
  properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

const ledgerQuerySchema = {
  type: 'object',
  // 1 to 500, as text: the admin validator never coerces.
  properties: { limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$' } },
} as const;

const entrySchema = {
  type: 'object',
  required: ['id', 'kind', 'amount', 'model', 'key_id', 'reference', 'created_at', 'state'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: ['charge', 'topup', 'adjustment'] },
    amount: { type: 'number' },
    model: { type: ['string', 'null'] },
    key_id: { type: ['string', 'null'] },
    reference: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    state: { type: 'string', enum: ['pending', 'applied'] },
  },
} as const;

const topUpResponseSchema = {
  type: 'object',
  required: ['entry', 'balance'],
  properties: { entry: entrySchema, balance: { type: 'number' } },
} as const;

const ledgerListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: entrySchema } },
} as const;

interface TopUpRequest {
  Params: { id: string };
  Body: { amount: number; reference?: string };
  Headers: { 'idempotency-key'?: string };
}

interface LedgerRequest {
  Params: { id: string };
  Querystring: { limit?: string };
}

/** The operator's wallet routes: top-ups and the ledger of an account (prefix `/admin/v1`). */
export async function walletRoutes(app: FastifyInstance, options: WalletRouteOptions): Promise<void> {
  requireAdminToken(app, options.adminToken);
  app.setValidatorCompiler(strictValidatorCompiler);
  registerExactJsonParser(app);

  app.post<TopUpRequest>(
    '/accounts/:id/topups',
    {
      schema: {
        params: idParamsSchema,
        headers: topUpHeadersSchema,
        body: topUpBodySchema,
        response: { 201: topUpResponseSchema, ...adminErrorResponses, 409: errorSchema },
      },
    },
    async (request, reply) => {
      const amountMicros = exactAmount(request);
      await ensureAccount(options, request.params.id);
      const result = await options.billing.topUp({
        accountId: request.params.id,
        amountMicros,
        reference: request.body.reference,
        idempotencyKey: request.headers['idempotency-key'] ?? randomUUID(),
      });
      if (!result.created) reply.header('idempotent-replayed', 'true');
      return reply
        .code(201)
        .send({ entry: toEntryView(result.entry), balance: microsToIrt(result.balanceMicros) });
    },
  );

  app.get<LedgerRequest>(
    '/accounts/:id/ledger',
    {
      schema: {
        params: idParamsSchema,
        querystring: ledgerQuerySchema,
        response: { 200: ledgerListSchema, ...adminErrorResponses },
      },
    },
    async (request) => {
      await ensureAccount(options, request.params.id);
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      const entries = await options.billing.listLedger(request.params.id, limit);
      return { object: 'list', data: entries.map(toEntryView) };
    },
  );
}

/** The JSON of a ledger entry (amounts in Toman, signed: charges are negative). */
export function toEntryView(entry: LedgerEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: microsToIrt(entry.amountMicros),
    model: entry.model,
    key_id: entry.keyId,
    reference: entry.reference,
    created_at: entry.createdAt.toISOString(),
    state: entry.state,
  };
}

async function ensureAccount(options: WalletRouteOptions, accountId: string): Promise<void> {
  if (!(await options.accountExists(accountId))) throw accountErrors.accountNotFound(accountId);
}

// The amount as the client wrote it: a double cannot hold 18 significant digits (1e12 with 6
// decimals), and a silently rounded credit is worse than a refused one.
const amountSources = new WeakMap<object, string>();

/**
 * A JSON parser for this plugin only that keeps the source text of the body's `amount` beside the
 * parsed body (JSON.parse source text access, Node ≥ 21), so the amount is converted exactly.
 */
function registerExactJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const sources = new Map<object, string>();
    try {
      const body: unknown = JSON.parse(
        text as string,
        function (this: object, key, value, context?: { source?: string }) {
          if (key === 'amount' && typeof value === 'number' && context?.source !== undefined) {
            sources.set(this, context.source);
          }
          return value;
        },
      );
      const source = typeof body === 'object' && body !== null ? sources.get(body) : undefined;
      if (source !== undefined) amountSources.set(body as object, source);
      done(null, body);
    } catch {
      done(errors.invalidRequest('The request body is not valid JSON.'), undefined);
    }
  });
}

/** The validated amount in µIRT, exactly as written; more than 6 decimals is a 400 naming it. */
function exactAmount(request: FastifyRequest<TopUpRequest>): bigint {
  const source = amountSources.get(request.body) ?? String(request.body.amount);
  try {
    return irtToMicros(source);
  } catch {
    throw errors.invalidRequest('Invalid body field `amount`: must have at most 6 decimals.');
  }
}
