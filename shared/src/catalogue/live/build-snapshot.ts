import type { Catalogue, CatalogueModel, ExchangeRate, ModelPricing, ModelRoute } from '../catalogue.ts';
import { createCatalogue } from '../catalogue.ts';
import { TOKEN_ONLY_PRICE_FIELDS } from '../catalogue-schema.ts';
import type { CatalogueOverrides, PriceOverride } from './catalogue-overrides.repository.ts';
import { listPriceIrt, multipliedPrice } from './price-math.ts';

/** Fields and subjects of the stored overrides (the history names them alike). */
export const EXCHANGE_RATE_SUBJECT = 'exchange_rate';
export const MARKUP_SUBJECT = 'markup';
export const accountSubject = (accountId: string) => `account:${accountId}`;
export const DEFAULT_MARKUP_PERCENT = 0;
export const DEFAULT_PRICE_MULTIPLIER = 1;

/**
 * Which models a process may serve right now, asked at every rebuild: today from the configured
 * provider keys; with upstream channels, from the live channels (a provider with at least one
 * enabled channel is configured). This is the one input of the snapshot that is not stored here.
 */
export interface ProviderAvailability {
  /** Whether the gateway may call this route's provider. */
  isRouteConfigured(route: ModelRoute): boolean;
  /** Models without a configured route are answered by the offline simulator (SIMULATE_PROVIDERS). */
  readonly simulateProviders: boolean;
}

/** One model as the operator API shows it: the base entry and what the operator set on it. */
export interface OperatorModelState {
  /** The stored `enabled` (null: as the file says). */
  readonly enabledOverride: boolean | null;
  readonly priceOverride: PriceOverride | null;
  /** Enabled by the file and the operator, but no route can be called: served as disabled. */
  readonly unavailable: boolean;
}

/** A frozen catalogue with everything it was built from; swapped whole on every change. */
export interface CatalogueSnapshot extends Catalogue {
  /** The overrides store's version it was built at. */
  readonly version: number;
  readonly markupPercent: number;
  /** Per model id: the operator's settings. */
  operatorState(id: string): OperatorModelState;
  /** The account's price multiplier (1 unless its price plan says otherwise). */
  priceMultiplierOf(accountId: string): number;
  /** The catalogue an account's requests are priced from: this one, its prices × its multiplier. */
  forAccount(accountId: string): Catalogue;
}

/**
 * The catalogue a process serves: the file (`base`, as loaded, prices from its list prices) with
 * the stored overrides applied, then the models without a configured route served as disabled
 * (or simulated). Pure: the same inputs build the same snapshot.
 */
export function buildSnapshot(
  base: Catalogue,
  overrides: CatalogueOverrides,
  availability: ProviderAvailability,
): CatalogueSnapshot {
  const values = new Map<string, unknown>();
  const updated = new Map<string, Date>();
  for (const entry of overrides.entries) {
    values.set(`${entry.subject}\u0000${entry.field}`, entry.value);
    updated.set(`${entry.subject}\u0000${entry.field}`, entry.updatedAt);
  }
  const value = (subject: string, field: string) => values.get(`${subject}\u0000${field}`);
  const storedRate = value(EXCHANGE_RATE_SUBJECT, 'irt_per_usd');
  const exchangeRate: ExchangeRate =
    typeof storedRate === 'number'
      ? {
          irtPerUsd: storedRate,
          asOf: (updated.get(`${EXCHANGE_RATE_SUBJECT}\u0000irt_per_usd`) ?? new Date(0)).toISOString(),
          note: undefined,
        }
      : base.exchangeRate;
  const storedMarkup = value(MARKUP_SUBJECT, 'markup_percent');
  const markupPercent = typeof storedMarkup === 'number' ? storedMarkup : DEFAULT_MARKUP_PERCENT;
  const repriced = exchangeRate.irtPerUsd !== base.exchangeRate.irtPerUsd || markupPercent !== 0;

  const states = new Map<string, OperatorModelState>();
  const models = base.list().map((model) => {
    const enabledOverride = value(model.id, 'enabled');
    const priceOverride = (value(model.id, 'price_override') ?? null) as PriceOverride | null;
    const enabled = typeof enabledOverride === 'boolean' ? enabledOverride : model.enabled;
    let built: CatalogueModel = model;
    if (priceOverride !== null)
      built = withPricing(model, overriddenPricing(model, priceOverride, exchangeRate, markupPercent));
    else if (repriced) built = withPricing(model, listPricing(model, exchangeRate.irtPerUsd, markupPercent));
    const unavailable = enabled && !model.routes.some((route) => availability.isRouteConfigured(route));
    if (unavailable && availability.simulateProviders) built = simulated(built);
    const served = enabled && (!unavailable || availability.simulateProviders);
    if (built.enabled !== served) built = Object.freeze({ ...built, enabled: served });
    states.set(model.id, {
      enabledOverride: typeof enabledOverride === 'boolean' ? enabledOverride : null,
      priceOverride,
      unavailable: unavailable && !availability.simulateProviders,
    });
    return built;
  });
  const catalogue = createCatalogue(models, exchangeRate);

  const multipliers = new Map<string, number>();
  for (const entry of overrides.entries) {
    if (
      entry.field === 'price_multiplier' &&
      entry.subject.startsWith('account:') &&
      typeof entry.value === 'number'
    )
      multipliers.set(entry.subject.slice('account:'.length), entry.value);
  }
  // One priced catalogue per distinct multiplier, built on first use.
  const priced = new Map<number, Catalogue>();
  const pricedBy = (multiplier: number): Catalogue => {
    let found = priced.get(multiplier);
    if (found === undefined) {
      found = createCatalogue(
        models.map((model) => withPricing(model, multiplyPricing(model.pricing, multiplier))),
        exchangeRate,
      );
      priced.set(multiplier, found);
    }
    return found;
  };
  const noState: OperatorModelState = { enabledOverride: null, priceOverride: null, unavailable: false };
  const priceMultiplierOf = (accountId: string) => multipliers.get(accountId) ?? DEFAULT_PRICE_MULTIPLIER;
  return Object.freeze({
    exchangeRate: catalogue.exchangeRate,
    list: catalogue.list,
    get: catalogue.get,
    resolve: catalogue.resolve,
    version: overrides.version,
    markupPercent,
    operatorState: (id: string) => states.get(id) ?? noState,
    priceMultiplierOf,
    forAccount(accountId: string) {
      const multiplier = priceMultiplierOf(accountId);
      return multiplier === DEFAULT_PRICE_MULTIPLIER ? catalogue : pricedBy(multiplier);
    },
  });
}

function withPricing(model: CatalogueModel, pricing: ModelPricing): CatalogueModel {
  return Object.freeze({ ...model, pricing });
}

type PriceFields = Record<string, number | null | undefined | object>;

/** Every price of the model from its list prices at this rate and markup. */
function listPricing(model: CatalogueModel, irtPerUsd: number, markupPercent: number): ModelPricing {
  const usd = model.list_price_usd;
  const convert = (price: number) => listPriceIrt(price, irtPerUsd, markupPercent);
  const nullable = (price: number | null) => (price === null ? null : convert(price));
  const extras: Record<string, number> = {};
  for (const field of TOKEN_ONLY_PRICE_FIELDS) {
    const price = (usd as unknown as PriceFields)[field];
    if (typeof price === 'number') extras[field] = convert(price);
  }
  const tier = usd.long_context;
  return Object.freeze({
    currency: 'IRT' as const,
    unit: usd.unit,
    input: convert(usd.input),
    output: nullable(usd.output),
    cached_input: nullable(usd.cached_input),
    ...(tier && {
      long_context: Object.freeze({
        above_input_tokens: tier.above_input_tokens,
        input: convert(tier.input),
        output: convert(tier.output),
        cached_input: nullable(tier.cached_input),
      }),
    }),
    ...extras,
  });
}

/**
 * The operator's price: its input, output and cached input; no long-context tier (the operator's
 * price holds for every prompt length); the other native prices (cache writes, web search) stay
 * the list prices at the rate and markup.
 */
function overriddenPricing(
  model: CatalogueModel,
  override: PriceOverride,
  rate: ExchangeRate,
  markupPercent: number,
): ModelPricing {
  const { long_context: _tier, ...list } = listPricing(model, rate.irtPerUsd, markupPercent);
  return Object.freeze({
    ...list,
    input: override.input,
    output: override.output,
    cached_input: override.cached_input,
  });
}

/** Every price × the multiplier (µIRT precision). */
function multiplyPricing(pricing: ModelPricing, multiplier: number): ModelPricing {
  const times = (price: number) => multipliedPrice(price, multiplier);
  const nullable = (price: number | null) => (price === null ? null : times(price));
  const out: Record<string, unknown> = { ...pricing };
  for (const [field, price] of Object.entries(pricing)) {
    if (typeof price === 'number') out[field] = times(price);
  }
  out.output = nullable(pricing.output);
  out.cached_input = nullable(pricing.cached_input);
  const tier = pricing.long_context;
  if (tier !== undefined) {
    out.long_context = Object.freeze({
      above_input_tokens: tier.above_input_tokens,
      input: times(tier.input),
      output: times(tier.output),
      cached_input: nullable(tier.cached_input),
    });
  }
  return Object.freeze(out) as unknown as ModelPricing;
}

/** The model answered by the demo simulator under its own native id (its price unchanged). */
function simulated(model: CatalogueModel): CatalogueModel {
  const nativeId = model.routes[0]?.native_id ?? model.id;
  return Object.freeze({
    ...model,
    routes: Object.freeze([Object.freeze({ provider: 'demo', native_id: nativeId })]),
  });
}
