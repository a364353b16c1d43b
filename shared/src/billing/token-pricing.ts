import type { ModelPricing } from '../catalogue/catalogue.ts';
import type { NormalizedUsage } from '../providers/chat-types.ts';
import { priceMicros } from './money.ts';

const PER_MILLION = 1_000_000;

/**
 * The exact cost of a token-priced request in µIRT: uncached input at `input`, cached input at
 * `cached_input` (or `input` where the model has none), every output token (reasoning included)
 * at `output`; rounded once. A prompt longer than the model's long-context threshold is priced at
 * its long-context rates, all of them (`tokenRatesFor`).
 */
export function tokenCostMicros(pricing: ModelPricing, usage: NormalizedUsage): bigint {
  const cached = Math.min(Math.max(usage.cachedInputTokens, 0), usage.inputTokens);
  const rates = tokenRatesFor(pricing, usage.inputTokens);
  return priceMicros([
    { quantity: usage.inputTokens - cached, unitPriceIrt: rates.input, perUnits: PER_MILLION },
    { quantity: cached, unitPriceIrt: rates.cached_input ?? rates.input, perUnits: PER_MILLION },
    { quantity: usage.outputTokens, unitPriceIrt: rates.output ?? 0, perUnits: PER_MILLION },
  ]);
}

/**
 * The token rates of a request whose prompt has `promptTokens` tokens (cached ones included): the
 * long-context rates above the model's threshold, as the providers bill them (the whole request,
 * output included, at the higher rates), else the model's own.
 */
export function tokenRatesFor(
  pricing: ModelPricing,
  promptTokens: number,
): Pick<ModelPricing, 'input' | 'output' | 'cached_input'> {
  const tier = pricing.long_context;
  return tier !== undefined && promptTokens > tier.above_input_tokens ? tier : pricing;
}
