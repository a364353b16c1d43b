import type { ApiKeyRecord } from '../../../../shared/src/accounts/api-keys.repository.ts';
import { keySettingsBodySchema } from '../../../../shared/src/accounts/key-settings.ts';
import { keyState } from '../../../../shared/src/accounts/key-state.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import type { AccountWithBalance } from '../../use-cases/get-account.ts';

/** Path parameter `{id}` of an account or key; longer than any id we issue is a 400. */
export const idParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** An account as the operator API shows it (balance in Toman). */
export const accountSchema = {
  type: 'object',
  required: ['id', 'email', 'name', 'status', 'balance', 'created_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'inactive'] },
    balance: { type: 'number' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const keyProperties = {
  id: { type: 'string' },
  account_id: { type: 'string' },
  name: { type: 'string' },
  last4: { type: 'string' },
  state: { type: 'string', enum: ['active', 'disabled', 'expired', 'deleted'] },
  rate_limit: { type: 'integer' },
  monthly_cap: { type: ['number', 'null'] },
  allowed_ips: { type: 'array', items: { type: 'string' } },
  allowed_models: { type: ['array', 'null'], items: { type: 'string' } },
  identity_injection: { type: 'boolean' },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
  active: { type: 'boolean' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;

/** A key without its secret: what every read and update answers. */
export const keySchema = {
  type: 'object',
  required: Object.keys(keyProperties),
  properties: keyProperties,
} as const;

/** A key at creation: the same plus the full `key`, shown this once. */
export const createdKeySchema = {
  type: 'object',
  required: [...Object.keys(keyProperties), 'key'],
  properties: { ...keyProperties, key: { type: 'string' } },
} as const;

export const keyListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: keySchema } },
} as const;

/** Response schemas of the errors every admin route can answer. */
export const adminErrorResponses = { 400: errorSchema, 401: errorSchema, 404: errorSchema } as const;

/**
 * The schemas of creating, changing and deleting a key, with the errors of the API serving them: the
 * operator API and the console go through the same use cases and answer the same.
 */
export function keyWriteSchemas<Errors extends Record<number, object>>(errorResponses: Errors) {
  return {
    create: {
      body: keySettingsBodySchema,
      response: { 201: createdKeySchema, 409: errorSchema, ...errorResponses },
    },
    update: {
      params: idParamsSchema,
      body: keySettingsBodySchema,
      response: { 200: keySchema, 409: errorSchema, ...errorResponses },
    },
    remove: { params: idParamsSchema, response: { 204: { type: 'null' }, ...errorResponses } },
  } as const;
}

/** The JSON of an account. */
export function toAccountView({ account, balanceMicros }: AccountWithBalance) {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    status: account.status,
    balance: microsToIrt(balanceMicros),
    created_at: account.createdAt.toISOString(),
  };
}

/** The JSON of a key: settings in the request's vocabulary, the state at `now`, no hash. */
export function toKeyView(key: ApiKeyRecord, now: Date) {
  return {
    id: key.id,
    account_id: key.accountId,
    name: key.name,
    last4: key.last4,
    state: keyState({ ...key, deleted: key.deletedAt !== null }, now),
    rate_limit: key.rateLimit,
    monthly_cap: key.monthlyCapMicros === null ? null : microsToIrt(key.monthlyCapMicros),
    allowed_ips: [...key.allowedIps],
    allowed_models: key.allowedModels === null ? null : [...key.allowedModels],
    identity_injection: key.identityInjection,
    expires_at: key.expiresAt?.toISOString() ?? null,
    active: key.active,
    created_at: key.createdAt.toISOString(),
    updated_at: key.updatedAt.toISOString(),
  };
}
