import type { ProviderId } from '../providers/provider-ids.ts';
import type { Capability, ModelType, PricingUnit } from './catalogue-schema.ts';

/** Price of one model in Toman per unit (per 1M tokens for token-priced models). */
export interface ModelPricing {
  readonly currency: 'IRT';
  readonly unit: PricingUnit;
  readonly input: number;
  readonly output: number | null;
  readonly cached_input: number | null;
  /** Rates for a prompt of more than `above_input_tokens` tokens, where the provider charges more. */
  readonly long_context?: LongContextPricing;
}

/** A provider's higher token rates for long prompts (same unit and currency as the pricing around it). */
export interface LongContextPricing {
  readonly above_input_tokens: number;
  readonly input: number;
  readonly output: number;
  readonly cached_input: number | null;
}

/** The provider's published list price in US dollars, as written in the catalogue file. */
export interface ListPriceUsd {
  readonly unit: PricingUnit;
  readonly input: number;
  readonly output: number | null;
  readonly cached_input: number | null;
  readonly long_context?: LongContextPricing;
}

/** One upstream that can serve a model; a model's routes are tried in order. */
export interface ModelRoute {
  /** A built-in provider id, or an OpenAI-compatible upstream declared in configuration. */
  readonly provider: ProviderId | (string & {});
  readonly native_id: string;
}

/** A validated catalogue entry, with its price converted to IRT. Deeply frozen. */
export interface CatalogueModel {
  readonly id: string;
  readonly name: string;
  readonly type: ModelType;
  readonly owned_by: string;
  readonly created: number;
  readonly context_window: number | null;
  readonly max_output_tokens: number | null;
  readonly capabilities: readonly Capability[];
  readonly native_id: string;
  readonly pricing: ModelPricing;
  readonly list_price_usd: ListPriceUsd;
  /** Primary first, then alternatives tried on 429, 5xx or timeout. Never empty. */
  readonly routes: readonly ModelRoute[];
  readonly aliases: readonly string[];
  /**
   * False for a model disabled in the file, and (in the catalogue a process serves,
   * `loadConfiguredCatalogue`) for one whose every route names a provider without credentials.
   * Disabled models stay in the catalogue (and in lookups); callers decide how to treat them.
   */
  readonly enabled: boolean;
}

/** The rate used to turn list prices into IRT prices. */
export interface ExchangeRate {
  readonly irtPerUsd: number;
  readonly asOf: string;
  readonly note: string | undefined;
}

/** The model catalogue: every model of models.json and O(1) lookups by id, alias or upstream id. */
export interface Catalogue {
  readonly exchangeRate: ExchangeRate;
  /** Every model (enabled or not) in the order of the catalogue file. */
  list(): readonly CatalogueModel[];
  /** The model with exactly this id. */
  get(id: string): CatalogueModel | undefined;
  /**
   * What a request's `model` field names: an exact id, else an alias, else a bare upstream id that
   * is the native_id of exactly one model. An upstream id shared by several models resolves to nothing.
   */
  resolve(name: string): CatalogueModel | undefined;
}

/** The spec's Model resource, as served by GET /v1/models. */
export interface PublicModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  name: string;
  type: ModelType;
  context_window: number | null;
  max_output_tokens: number | null;
  capabilities: Capability[];
  pricing: {
    currency: 'IRT';
    unit: PricingUnit;
    input: number;
    output: number | null;
    cached_input: number | null;
    /** An extension: the long-context rates, only for models that have them. */
    long_context?: LongContextPricing;
  };
  native_id: string;
}

/** Builds the lookup maps once. `models` must already be validated (unique ids and aliases). */
export function createCatalogue(models: readonly CatalogueModel[], exchangeRate: ExchangeRate): Catalogue {
  const all = Object.freeze([...models]);
  const byId = new Map<string, CatalogueModel>();
  const byAlias = new Map<string, CatalogueModel>();
  // null marks an upstream id shared by several models: ambiguous, so it resolves to nothing.
  const byNativeId = new Map<string, CatalogueModel | null>();
  for (const model of all) {
    byId.set(model.id, model);
    for (const alias of model.aliases) byAlias.set(alias, model);
    byNativeId.set(model.native_id, byNativeId.has(model.native_id) ? null : model);
  }
  return Object.freeze({
    exchangeRate: Object.freeze({ ...exchangeRate }),
    list: () => all,
    get: (id: string) => byId.get(id),
    resolve: (name: string) => byId.get(name) ?? byAlias.get(name) ?? byNativeId.get(name) ?? undefined,
  });
}

/** The spec's Model object for a catalogue model: no routes, aliases or internal flags. */
export function toPublicModel(model: CatalogueModel): PublicModel {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: model.owned_by,
    name: model.name,
    type: model.type,
    context_window: model.context_window,
    max_output_tokens: model.max_output_tokens,
    capabilities: [...model.capabilities],
    pricing: {
      currency: 'IRT',
      unit: model.pricing.unit,
      input: model.pricing.input,
      output: model.pricing.output,
      cached_input: model.pricing.cached_input,
      ...(model.pricing.long_context && { long_context: { ...model.pricing.long_context } }),
    },
    native_id: model.native_id,
  };
}
