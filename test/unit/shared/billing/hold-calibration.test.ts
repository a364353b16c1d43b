import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_WINDOW,
  type HoldBasis,
  HoldCalibration,
  NO_CALIBRATION,
} from '../../../../shared/src/billing/hold-calibration.ts';
import { chatHold, DEFAULT_OUTPUT_ALLOWANCE_TOKENS } from '../../../../shared/src/billing/hold-estimate.ts';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { ModelPricing } from '../../../../shared/src/catalogue/catalogue.ts';

const basis = (estimatedInputTokens: number, model = 'm/a', choices = 1): HoldBasis => ({
  model,
  basis: 'chat',
  estimatedInputTokens,
  choices,
});

describe('HoldCalibration', () => {
  it('knows nothing until an answer is seen: ratio 1, no output figure', () => {
    const calibration = new HoldCalibration();
    expect(calibration.figures('m/a', 'chat', 100)).toEqual({
      inputRatio: 1,
      outputTokens: undefined,
      cachedShare: 0,
      sameSize: false,
    });
  });

  it('takes the 90th percentile (nearest rank) of the answers to requests of the same estimate', () => {
    const calibration = new HoldCalibration();
    for (let output = 1; output <= 10; output++)
      calibration.observe(basis(100), { inputTokens: 50, outputTokens: output * 10 });
    expect(calibration.figures('m/a', 'chat', 100)).toMatchObject({
      inputRatio: 0.5,
      outputTokens: 90,
      sameSize: true,
    });
  });

  it('counts output per choice', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(10, 'm/a', 4), { inputTokens: 10, outputTokens: 41 });
    expect(calibration.figures('m/a', 'chat', 10).outputTokens).toBe(11);
  });

  it('prefers requests of the same estimate, then of about the same size, then all of the model', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(100), { inputTokens: 100, outputTokens: 500 });
    calibration.observe(basis(1_000), { inputTokens: 500, outputTokens: 5 });
    // Same estimate: that request's figures alone.
    expect(calibration.figures('m/a', 'chat', 1_000)).toMatchObject({ outputTokens: 5, sameSize: true });
    // About the same size (within a power of two): the neighbour's, not the other one's.
    expect(calibration.figures('m/a', 'chat', 700)).toMatchObject({
      outputTokens: 5,
      inputRatio: 0.5,
      sameSize: false,
    });
    // Far from both: all of the model's answers.
    expect(calibration.figures('m/a', 'chat', 20_000).outputTokens).toBe(500);
  });

  it("borrows every model's answers for a model not seen yet, per basis", () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(100, 'm/a'), { inputTokens: 200, outputTokens: 7 });
    expect(calibration.figures('m/b', 'chat', 100)).toMatchObject({ inputRatio: 2, outputTokens: 7 });
    expect(calibration.figures('m/b', 'native', 100)).toMatchObject({
      inputRatio: 1,
      outputTokens: undefined,
    });
  });

  it('forgets the oldest answers past its window', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(100), { inputTokens: 100, outputTokens: 10_000 });
    for (let i = 0; i < CALIBRATION_WINDOW; i++)
      calibration.observe(basis(100), { inputTokens: 100, outputTokens: 3 });
    expect(calibration.figures('m/a', 'chat', 100).outputTokens).toBe(3);
  });

  it('bounds the input ratio, takes the low end of the cached share, and ignores answers it cannot use', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(10), { inputTokens: 1_000, outputTokens: 1, cachedInputTokens: 1_000 });
    expect(calibration.figures('m/a', 'chat', 10)).toMatchObject({ inputRatio: 4, cachedShare: 1 });
    calibration.observe(basis(10), { inputTokens: 1_000, outputTokens: 1, cachedInputTokens: 0 });
    expect(calibration.figures('m/a', 'chat', 10).cachedShare).toBe(0);
    calibration.observe(basis(0), { inputTokens: 1, outputTokens: 1 });
    calibration.observe(basis(5, 'm/a', 0), { inputTokens: 1, outputTokens: 1 });
    calibration.observe(basis(10), { inputTokens: Number.NaN, outputTokens: 1 });
    expect(calibration.figures('m/a', 'chat', 10)).toMatchObject({ inputRatio: 4 });
  });
});

describe('chatHold with a calibration', () => {
  const pricing: ModelPricing = {
    currency: 'IRT',
    unit: '1M_tokens',
    input: 1_000_000,
    output: 2_000_000,
    cached_input: 100_000,
  };
  const model = { id: 'm/a', pricing, context_window: 100_000, max_output_tokens: 1_000 };
  const cost = (input: number, output: number, cached = 0) =>
    tokenCostMicros(pricing, {
      inputTokens: input,
      cachedInputTokens: cached,
      outputTokens: output,
      reasoningTokens: 0,
    });
  // 300 bytes: 100 tokens by the heuristic, plus its 16 tokens of overhead.
  const request = { inputBytes: 300, imageParts: 0, maxOutputTokens: undefined, choices: 1 };

  it('holds what the answers to such requests used, once seen, and the default allowance before', () => {
    const calibration = new HoldCalibration();
    expect(chatHold(model, request, calibration)).toMatchObject({
      micros: cost(116, DEFAULT_OUTPUT_ALLOWANCE_TOKENS),
      bounded: false,
      basis: { model: 'm/a', basis: 'chat', estimatedInputTokens: 116, choices: 1 },
    });
    calibration.observe(basis(116), { inputTokens: 29, outputTokens: 6, cachedInputTokens: 0 });
    expect(chatHold(model, request, calibration).micros).toBe(cost(29, 6));
  });

  it('prices the share of the input the provider caches at its cached price', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(116), { inputTokens: 100, outputTokens: 6, cachedInputTokens: 50 });
    expect(chatHold(model, request, calibration).micros).toBe(cost(100, 6, 50));
  });

  it('is bounded by a stated max_tokens, with its input learned only from requests of the same estimate', () => {
    const calibration = new HoldCalibration();
    const stated = { ...request, maxOutputTokens: 40, choices: 2 };
    // A request of about the same size was seen, not of this estimate: the plain heuristic.
    calibration.observe(basis(100), { inputTokens: 25, outputTokens: 6 });
    expect(chatHold(model, stated, calibration)).toMatchObject({ micros: cost(116, 80), bounded: true });
    calibration.observe(basis(116), { inputTokens: 29, outputTokens: 6 });
    expect(chatHold(model, stated, calibration).micros).toBe(cost(29, 80));
  });

  it('keeps the model output limit over what was seen', () => {
    const calibration = new HoldCalibration();
    calibration.observe(basis(116), { inputTokens: 116, outputTokens: 50_000 });
    expect(chatHold(model, request, calibration).micros).toBe(cost(116, 1_000));
    expect(chatHold(model, request, NO_CALIBRATION).micros).toBe(cost(116, DEFAULT_OUTPUT_ALLOWANCE_TOKENS));
  });
});
