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

/** Default output bound for the hold when a request sets none (and the model's own is larger). */
const DEFAULT_HELD_OUTPUT_TOKENS = 4_096;

/**
 * What to hold while a request runs: its input counted generously (one token per 3 characters,
 * no cache discount) plus the most output it may produce. An over-estimate only delays admission
 * of concurrent requests near the floor or cap; it is never charged.
 */
export function tokenHoldMicros(
  pricing: ModelPricing,
  inputCharacters: number,
  maxOutputTokens: number | undefined,
  modelMaxOutput: number | null,
): bigint {
  const output =
    maxOutputTokens ?? Math.min(modelMaxOutput ?? DEFAULT_HELD_OUTPUT_TOKENS, DEFAULT_HELD_OUTPUT_TOKENS);
  const usage = {
    inputTokens: Math.ceil(inputCharacters / 3) + 16,
    cachedInputTokens: 0,
    outputTokens: output,
    reasoningTokens: 0,
  };
  return tokenCostMicros(pricing, usage);
}
