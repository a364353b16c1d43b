import type { CatalogueModel } from '../catalogue/catalogue.ts';
import type { NativeModelExtras, NativePriceFields, ParamValue } from '../catalogue/catalogue-schema.ts';

/** The native layer's view of a catalogue model: its prices in IRT and its request-parameter rules. */
export interface NativeModelFacts {
  /** Cache-write and web-search prices in IRT; a missing one means "no such price", never 0. */
  readonly prices: NativePriceFields;
  readonly unsupportedParams: readonly string[];
  readonly fixedParams: Readonly<Record<string, ParamValue>>;
  readonly reasoningNoneAllows: readonly string[];
}

/**
 * Reads the fields a loaded model carries beyond `CatalogueModel` (see `NativeModelExtras`). A model
 * without them (built by hand, or by an older loader) has no native prices and no parameter rules.
 */
export function nativeFactsOf(model: CatalogueModel): NativeModelFacts {
  const extras = model as CatalogueModel & Partial<NativeModelExtras>;
  const pricing: NativePriceFields = extras.pricing ?? {};
  return {
    prices: {
      ...(pricing.cache_write_5m !== undefined && { cache_write_5m: pricing.cache_write_5m }),
      ...(pricing.cache_write_1h !== undefined && { cache_write_1h: pricing.cache_write_1h }),
      ...(pricing.web_search_per_1k !== undefined && { web_search_per_1k: pricing.web_search_per_1k }),
    },
    unsupportedParams: extras.unsupported_params ?? [],
    fixedParams: extras.fixed_params ?? {},
    reasoningNoneAllows: extras.reasoning_none_allows ?? [],
  };
}
