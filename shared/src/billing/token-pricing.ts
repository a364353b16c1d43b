import type { ModelPricing } from '../catalogue/catalogue.ts';
import type { NormalizedUsage } from '../providers/chat-types.ts';
import { priceMicros } from './money.ts';

const PER_MILLION = 1_000_000;

/**
 * The exact cost of a token-priced request in µIRT: uncached input at `input`, cached input at
 * `cached_input` (or `input` where the model has none), every output token (reasoning included)
 * at `output`; rounded once.
 */
export function tokenCostMicros(pricing: ModelPricing, usage: NormalizedUsage): bigint {
  const cached = Math.min(Math.max(usage.cachedInputTokens, 0), usage.inputTokens);
  return priceMicros([
    { quantity: usage.inputTokens - cached, unitPriceIrt: pricing.input, perUnits: PER_MILLION },
    { quantity: cached, unitPriceIrt: pricing.cached_input ?? pricing.input, perUnits: PER_MILLION },
    { quantity: usage.outputTokens, unitPriceIrt: pricing.output ?? 0, perUnits: PER_MILLION },
  ]);
}
