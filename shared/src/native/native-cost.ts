/**
 * The exact cost of one native call in µIRT: its usage × the catalogue's IRT prices, rounded once
 * (`priceMicros`). A part of the usage the model has no price for is never billed at zero: the
 * whole cost is refused with `UnpricedUsageError` naming every such part, so the gateway can
 * refuse such requests up front (`requestedPriceParts`) instead of serving them for free.
 */

import { mediaCostMicros } from '../billing/media-pricing.ts';
import { type PriceLine, priceMicros } from '../billing/money.ts';
import { tokenRatesFor } from '../billing/token-pricing.ts';
import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { nativeFactsOf } from './native-model.ts';
import type { NativeTokenUsage, NativeUsage } from './native-usage.ts';

const PER_MILLION = 1_000_000;
const PER_THOUSAND = 1_000;

/** The usage has parts the model's catalogue entry has no price for; nothing may be charged from it. */
export class UnpricedUsageError extends Error {
  readonly modelId: string;
  /** The unpriced parts, e.g. `cache_write_1h`, `web_search`, `file_search_calls`. */
  readonly parts: readonly string[];

  constructor(modelId: string, parts: readonly string[]) {
    super(`The catalogue has no price of ${modelId} for ${parts.join(', ')}.`);
    this.name = 'UnpricedUsageError';
    this.modelId = modelId;
    this.parts = parts;
  }
}

/** The cost of `usage` on `model` in µIRT; throws `UnpricedUsageError` for any part without a price. */
export function nativeCost(model: CatalogueModel, usage: NativeUsage): bigint {
  switch (usage.kind) {
    case 'tokens':
      return tokenCost(model, usage);
    case 'characters':
      if (model.pricing.unit !== '1K_chars') throw new UnpricedUsageError(model.id, ['characters']);
      return mediaCostMicros(model.pricing, usage.characters);
    case 'seconds':
      if (model.pricing.unit !== 'second' && model.pricing.unit !== 'minute')
        throw new UnpricedUsageError(model.id, ['seconds']);
      return mediaCostMicros(model.pricing, usage.seconds);
  }
}

/** One priced part of a token usage: the quantity, its price (null when the model has none), its unit size. */
interface TokenPart {
  readonly name: string;
  readonly quantity: number;
  readonly price: number | null | undefined;
  readonly perUnits: number;
}

function tokenParts(model: CatalogueModel, usage: NativeTokenUsage): TokenPart[] {
  const prices = nativeFactsOf(model).prices;
  // The prompt's size picks the rates: every input token, read from or written to a cache or not.
  const prompt =
    usage.inputTokens + usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  const rates = tokenRatesFor(model.pricing, prompt);
  return [
    { name: 'input', quantity: usage.inputTokens, price: rates.input, perUnits: PER_MILLION },
    {
      name: 'cached_input',
      quantity: usage.cacheReadTokens,
      price: rates.cached_input,
      perUnits: PER_MILLION,
    },
    {
      name: 'cache_write_5m',
      quantity: usage.cacheWrite5mTokens,
      price: prices.cache_write_5m,
      perUnits: PER_MILLION,
    },
    {
      name: 'cache_write_1h',
      quantity: usage.cacheWrite1hTokens,
      price: prices.cache_write_1h,
      perUnits: PER_MILLION,
    },
    { name: 'output', quantity: usage.outputTokens, price: rates.output, perUnits: PER_MILLION },
    {
      name: 'web_search',
      quantity: usage.webSearchRequests,
      price: prices.web_search_per_1k,
      perUnits: PER_THOUSAND,
    },
  ];
}

function tokenCost(model: CatalogueModel, usage: NativeTokenUsage): bigint {
  const missing = usage.unpriced.filter((part) => part.quantity > 0).map((part) => part.name);
  if (model.pricing.unit !== '1M_tokens') missing.unshift('tokens');
  const lines: PriceLine[] = [];
  for (const part of tokenParts(model, usage)) {
    if (part.quantity === 0) continue;
    if (part.price === null || part.price === undefined) missing.push(part.name);
    else lines.push({ quantity: part.quantity, unitPriceIrt: part.price, perUnits: part.perUnits });
  }
  if (missing.length > 0) throw new UnpricedUsageError(model.id, missing);
  return priceMicros(lines);
}
