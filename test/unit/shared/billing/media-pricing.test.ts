import { describe, expect, it } from 'vitest';
import { mediaCostMicros } from '../../../../shared/src/billing/media-pricing.ts';
import type { ModelPricing } from '../../../../shared/src/catalogue/catalogue.ts';

const price = (unit: ModelPricing['unit'], input: number): ModelPricing => ({
  currency: 'IRT',
  unit,
  input,
  output: null,
  cached_input: null,
});

describe('mediaCostMicros', () => {
  it('prices images, characters, audio minutes and video seconds exactly', () => {
    expect(mediaCostMicros(price('image', 4_200), 3)).toBe(12_600_000_000n);
    expect(mediaCostMicros(price('1K_chars', 1_575), 1_500)).toBe(2_362_500_000n);
    // 90.5 s at 630 IRT per minute = 950.25 IRT
    expect(mediaCostMicros(price('minute', 630), 90.5)).toBe(950_250_000n);
    expect(mediaCostMicros(price('second', 52_500), 8)).toBe(420_000_000_000n);
  });

  it('refuses a token-priced model', () => {
    expect(() => mediaCostMicros(price('1M_tokens', 1), 1)).toThrow(RangeError);
  });
});
