import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import type { CatalogueSnapshot } from '../../../../shared/src/catalogue/live/build-snapshot.ts';
import { MARKUP_BOUNDS, MULTIPLIER_BOUNDS } from '../../../../shared/src/catalogue/live/catalogue-admin.ts';
import type { CatalogueChange } from '../../../../shared/src/catalogue/live/catalogue-overrides.repository.ts';
import { pricingSchema } from '../../schemas/model.schema.ts';

const price = { type: 'number', minimum: 0 } as const;
const nullablePrice = { type: ['number', 'null'], minimum: 0 } as const;

/** `price_override`: IRT per the model's unit, or null to return to the list price. */
export const priceOverrideSchema = {
  type: ['object', 'null'],
  description:
    'The price in Toman per the model’s unit, replacing its list price; null: the list price again.',
  additionalProperties: false,
  required: ['input'],
  properties: { input: price, output: nullablePrice, cached_input: nullablePrice },
} as const;

export const modelPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean', description: 'False: the model is disabled on every endpoint.' },
    price_override: priceOverrideSchema,
  },
} as const;

export const exchangeRateBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['irt_per_usd'],
  properties: { irt_per_usd: { type: 'number', exclusiveMinimum: 0, description: 'Toman per US dollar.' } },
} as const;

export const markupBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['markup_percent'],
  properties: {
    markup_percent: {
      type: 'number',
      minimum: MARKUP_BOUNDS.min,
      maximum: MARKUP_BOUNDS.max,
      description: 'Added to every list price, in percent (−90 to 1000).',
    },
  },
} as const;

export const priceMultiplierSchema = {
  type: 'number',
  minimum: MULTIPLIER_BOUNDS.min,
  maximum: MULTIPLIER_BOUNDS.max,
  description: 'The account’s price plan: every price × this (0.1 to 10; 0.9 is a 10 % discount).',
} as const;

const listPriceSchema = {
  type: 'object',
  description: 'The provider’s published price in US dollars per `unit`, from the catalogue file.',
  additionalProperties: true,
  required: ['unit', 'input', 'output', 'cached_input'],
  properties: {
    unit: { type: 'string' },
    input: { type: 'number' },
    output: { type: ['number', 'null'] },
    cached_input: { type: ['number', 'null'] },
  },
} as const;

const operatorModelProperties = {
  id: { type: 'string' },
  object: { type: 'string', const: 'model' },
  name: { type: 'string' },
  type: { type: 'string' },
  owned_by: { type: 'string' },
  enabled: { type: 'boolean', description: 'The operator’s (or else the file’s) setting.' },
  served: {
    type: 'boolean',
    description: 'Listed and callable now: enabled, and at least one route’s provider is configured.',
  },
  list_price_usd: listPriceSchema,
  price_override: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['input', 'output', 'cached_input'],
    properties: {
      input: { type: 'number' },
      output: { type: ['number', 'null'] },
      cached_input: { type: ['number', 'null'] },
    },
  },
  pricing: {
    ...pricingSchema,
    description: 'The effective price in Toman: the override, else the list price at the rate and markup.',
  },
  routes: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['provider', 'native_id'],
      properties: { provider: { type: 'string' }, native_id: { type: 'string' } },
    },
  },
  aliases: { type: 'array', items: { type: 'string' } },
} as const;

export const operatorModelSchema = {
  type: 'object',
  description:
    'A catalogue model as the operator sees it: disabled ones included, with list and effective prices.',
  additionalProperties: false,
  required: Object.keys(operatorModelProperties),
  properties: operatorModelProperties,
} as const;

export const operatorModelListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: operatorModelSchema },
  },
} as const;

export const exchangeRateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['irt_per_usd', 'as_of'],
  properties: {
    irt_per_usd: { type: 'number' },
    as_of: {
      type: 'string',
      description: 'When the rate was set: the catalogue file’s date, or the time of the change.',
    },
  },
} as const;

export const markupSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['markup_percent'],
  properties: { markup_percent: { type: 'number' } },
} as const;

const changeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'created', 'actor', 'subject', 'field', 'before', 'after'],
  properties: {
    id: { type: 'string' },
    created: { type: 'integer', description: 'Unix seconds.' },
    actor: { type: 'string', enum: ['operator', 'admin-api'] },
    subject: { type: 'string', description: 'A model id, `exchange_rate`, `markup` or `account:<id>`.' },
    field: { type: 'string' },
    before: { description: 'The value before the change.' },
    after: { description: 'The value after it.' },
  },
} as const;

export const changeListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'next_cursor'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: changeSchema },
    next_cursor: { type: ['string', 'null'] },
  },
} as const;

export const changesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^(?:[1-9][0-9]?|100)$',
      description: 'How many entries, 1 to 100 (default 20).',
    },
    cursor: { type: 'string', maxLength: 64, description: 'The previous page’s `next_cursor`.' },
  },
} as const;

/** The JSON of a model for the operator. */
export function toOperatorModel(snapshot: CatalogueSnapshot, model: CatalogueModel) {
  const state = snapshot.operatorState(model.id);
  const usd = model.list_price_usd;
  const pricing = model.pricing;
  return {
    id: model.id,
    object: 'model' as const,
    name: model.name,
    type: model.type,
    owned_by: model.owned_by,
    enabled: state.enabledOverride ?? (model.enabled || state.unavailable),
    served: model.enabled,
    list_price_usd: { ...usd },
    price_override:
      state.priceOverride === null
        ? null
        : {
            input: state.priceOverride.input,
            output: state.priceOverride.output ?? null,
            cached_input: state.priceOverride.cached_input ?? null,
          },
    pricing: {
      currency: 'IRT' as const,
      unit: pricing.unit,
      input: pricing.input,
      output: pricing.output,
      cached_input: pricing.cached_input,
      ...(pricing.long_context && { long_context: { ...pricing.long_context } }),
    },
    routes: model.routes.map((route) => ({ provider: route.provider, native_id: route.native_id })),
    aliases: [...model.aliases],
  };
}

/** The JSON of a history entry. */
export function toChangeView(change: CatalogueChange) {
  return { ...change };
}
