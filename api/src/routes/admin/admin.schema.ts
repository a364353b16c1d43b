import type { ApiKeyRecord } from '../../../../shared/src/accounts/api-keys.repository.ts';
import { keySettingsBodySchema } from '../../../../shared/src/accounts/key-settings.ts';
import { keyState } from '../../../../shared/src/accounts/key-state.ts';
import { microsToIrt } from '../../../../shared/src/billing/money.ts';
import { ledgerEntrySchema } from '../../schemas/ledger-entry.schema.ts';
import { errorSchema } from '../../schemas/model.schema.ts';
import { topUpResponseSchema } from '../../schemas/top-up.schema.ts';
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
  description: 'An account: its wallet balance in Toman, and whether its keys may be used.',
  additionalProperties: false,
  required: ['id', 'email', 'name', 'status', 'balance', 'created_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'inactive'] },
    balance: { type: 'number' },
    price_multiplier: {
      type: 'number',
      description: 'The account’s price plan: its holds and charges are every price × this (default 1).',
    },
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
  description: 'An API key’s settings and state, never its secret (`last4` tells it apart).',
  additionalProperties: false,
  required: Object.keys(keyProperties),
  properties: keyProperties,
} as const;

/** A key at creation: the same plus the full `key`, shown this once. */
export const createdKeySchema = {
  type: 'object',
  description: 'A new key with its secret `key` (`hk-…`), shown this once.',
  additionalProperties: false,
  required: [...Object.keys(keyProperties), 'key'],
  properties: { ...keyProperties, key: { type: 'string' } },
} as const;

export const keyListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: keySchema } },
} as const;

/** The accounts found by email: a list of 0 or 1. */
export const accountListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: accountSchema } },
} as const;

/** An account's ledger entries, newest first. */
export const ledgerListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: ledgerEntrySchema },
  },
} as const;

/** A top-up: its ledger entry and the wallet balance after it. */
export const topUpSchema = topUpResponseSchema(ledgerEntrySchema);

/**
 * The schemas of creating, changing and deleting a key, with the errors of the API serving them (the
 * console's; the operator API's routes declare the same bodies with their documented answers): both
 * go through the same use cases and answer the same.
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
