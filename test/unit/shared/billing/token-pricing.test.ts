import { describe, expect, it } from 'vitest';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { ModelPricing } from '../../../../shared/src/catalogue/catalogue.ts';

const pricing: ModelPricing = {
  currency: 'IRT',
  unit: '1M_tokens',
  input: 262_500,
  output: 1_050_000,
  cached_input: 26_250,
};
const usage = (inputTokens: number, cachedInputTokens: number, outputTokens: number) => ({
  inputTokens,
  cachedInputTokens,
  outputTokens,
  reasoningTokens: 0,
});

describe('tokenCostMicros', () => {
  it('prices input, cached input and output per million tokens, exactly', () => {
    // 1000 × 262500 / 1e6 = 262.5 IRT; 1 output token = 1.05 IRT
    expect(tokenCostMicros(pricing, usage(1_000, 0, 1))).toBe(263_550_000n);
    // 1000 input of which 400 cached: 600 × 0.2625 + 400 × 0.02625 = 157.5 + 10.5 = 168 IRT
    expect(tokenCostMicros(pricing, usage(1_000, 400, 0))).toBe(168_000_000n);
  });

  it('uses the input price for cached tokens when the model has no cached price', () => {
    const noCache = { ...pricing, cached_input: null };
    expect(tokenCostMicros(noCache, usage(1_000, 400, 0))).toBe(tokenCostMicros(noCache, usage(1_000, 0, 0)));
  });

  it('rounds once, half up, to the micro-Toman', () => {
    const cheap: ModelPricing = {
      currency: 'IRT',
      unit: '1M_tokens',
      input: 7.88,
      output: 31.5,
      cached_input: null,
    };
    // 3 × 7.88 / 1e6 = 0.00002364 IRT = 23.64 µIRT → 24
    expect(tokenCostMicros(cheap, usage(3, 0, 0))).toBe(24n);
    // sums before rounding: 1 in (7.88 µ) + 1 out (31.5 µ) = 39.38 → 39
    expect(tokenCostMicros(cheap, usage(1, 0, 1))).toBe(39n);
  });

  it('never counts more cached tokens than input tokens', () => {
    expect(tokenCostMicros(pricing, usage(10, 50, 0))).toBe(tokenCostMicros(pricing, usage(10, 10, 0)));
  });
});

describe('long-context rates', () => {
  // Gemini 2.5 Pro's shape: above 200k prompt tokens every rate is higher, output included.
  const tiered: ModelPricing = {
    ...pricing,
    long_context: { above_input_tokens: 200_000, input: 525_000, output: 1_575_000, cached_input: 52_500 },
  };

  it('price a prompt over the threshold at the long-context rates, output and cached input too', () => {
    // 200,001 input of which 1 cached, 10 output: 200,000 × 0.525 + 1 × 0.0525 + 10 × 1.575
    expect(tokenCostMicros(tiered, usage(200_001, 1, 10))).toBe(105_015_802_500n);
  });

  it('keep the model’s own rates up to the threshold, and for models without them', () => {
    expect(tokenCostMicros(tiered, usage(200_000, 0, 10))).toBe(
      tokenCostMicros(pricing, usage(200_000, 0, 10)),
    );
    expect(tokenCostMicros(tiered, usage(1_000, 400, 1))).toBe(
      tokenCostMicros(pricing, usage(1_000, 400, 1)),
    );
  });

  it('count cached tokens toward the threshold: the prompt’s size picks the rates', () => {
    const allCached = tokenCostMicros(tiered, usage(250_000, 250_000, 0));
    expect(allCached).toBe(13_125_000_000n); // 250,000 × 0.0525
  });
});
