import { describe, expect, it } from 'vitest';
import {
  chatHoldMicros,
  DEFAULT_OUTPUT_ALLOWANCE_TOKENS,
  embeddingHoldMicros,
  jsonByteCount,
  jsonCharacterCount,
  MAX_HOLD_MICROS,
  MAX_OUTPUT_TOKENS_FIELD,
  outputTokenLimit,
} from '../../../../shared/src/billing/hold-estimate.ts';
import { mediaCostMicros } from '../../../../shared/src/billing/media-pricing.ts';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { ModelPricing } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';

const pricing: ModelPricing = {
  currency: 'IRT',
  unit: '1M_tokens',
  input: 262_500,
  output: 1_050_000,
  cached_input: 26_250,
};
const model = { id: 'test/chat', pricing, context_window: 128_000, max_output_tokens: 16_384 };
const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  cachedInputTokens: 0,
  outputTokens,
  reasoningTokens: 0,
});
const chat = (input: Partial<Parameters<typeof chatHoldMicros>[1]>) =>
  chatHoldMicros(model, { inputBytes: 0, imageParts: 0, maxOutputTokens: undefined, choices: 1, ...input });

describe('chatHoldMicros', () => {
  it('holds at the long-context rates when the input estimate passes the threshold', () => {
    const tiered = {
      ...model,
      pricing: {
        ...pricing,
        long_context: { above_input_tokens: 1_000, input: 525_000, output: 2_100_000, cached_input: 52_500 },
      },
    };
    const hold = (inputBytes: number) =>
      chatHoldMicros(tiered, { inputBytes, imageParts: 0, maxOutputTokens: 100, choices: 1 });
    // 2,952 bytes: 984 + 16 = 1,000 tokens estimated, at the threshold; 2,955 bytes: 1,001, above it.
    expect(hold(2_952)).toBe(tokenCostMicros(pricing, usage(1_000, 100)));
    expect(hold(2_955)).toBe(tokenCostMicros(tiered.pricing, usage(1_001, 100)));
  });

  it('holds at least the cost of the largest answer a request stating max_tokens allows', () => {
    // 3,000 bytes of text: at most 1,000 tokens for any tokenizer of ordinary text.
    expect(chat({ inputBytes: 3_000, maxOutputTokens: 500 })).toBeGreaterThanOrEqual(
      tokenCostMicros(pricing, usage(1_000, 500)),
    );
  });

  it('holds the default allowance per choice when the request states no max_tokens', () => {
    expect(chat({})).toBe(tokenCostMicros(pricing, usage(16, DEFAULT_OUTPUT_ALLOWANCE_TOKENS)));
    expect(DEFAULT_OUTPUT_ALLOWANCE_TOKENS).toBeLessThan(4_096);
  });

  it('counts the input once and the output once per choice', () => {
    expect(chat({ inputBytes: 300, maxOutputTokens: 10, choices: 3 })).toBe(
      tokenCostMicros(pricing, usage(116, 30)),
    );
  });

  it("bounds the output by the model's output limit, else its context window", () => {
    expect(chat({ maxOutputTokens: 1_000_000 })).toBe(tokenCostMicros(pricing, usage(16, 16_384)));
    const noOutputLimit = { ...model, max_output_tokens: null };
    expect(outputTokenLimit(noOutputLimit)).toBe(128_000);
    expect(outputTokenLimit({ ...noOutputLimit, context_window: null })).toBe(MAX_OUTPUT_TOKENS_FIELD);
    // The allowance itself never exceeds a smaller model limit.
    expect(
      chatHoldMicros(
        { ...model, max_output_tokens: 50 },
        { inputBytes: 0, imageParts: 0, maxOutputTokens: undefined, choices: 1 },
      ),
    ).toBe(tokenCostMicros(pricing, usage(16, 50)));
  });

  it('bounds the input by the context window, and holds a fixed amount per image part', () => {
    expect(chat({ inputBytes: 30_000_000 })).toBe(
      tokenCostMicros(pricing, usage(128_000, DEFAULT_OUTPUT_ALLOWANCE_TOKENS)),
    );
    expect(chat({ imageParts: 2 })).toBe(
      tokenCostMicros(pricing, usage(4_016, DEFAULT_OUTPUT_ALLOWANCE_TOKENS)),
    );
  });
});

describe('embeddingHoldMicros', () => {
  it('counts each input, bounded by the context window', () => {
    const embedding = { ...model, max_output_tokens: null, context_window: 100 };
    expect(embeddingHoldMicros(embedding, ['abc', 'x'.repeat(3_000)])).toBe(
      tokenCostMicros(pricing, usage(16 + 2 + 100, 0)),
    );
  });

  it('counts UTF-8 bytes, so scripts of 3 bytes a character hold a token a character', () => {
    const embedding = { ...model, max_output_tokens: null };
    expect(embeddingHoldMicros(embedding, ['سلام دنیا', '你好世界'])).toBe(
      tokenCostMicros(pricing, usage(16 + Math.ceil(17 / 3) + 1 + 4 + 1, 0)),
    );
  });
});

describe('holds stay representable (far below 2^53 µIRT) by construction', () => {
  const catalogue = loadCatalogue();
  it('the largest request every shipped model accepts holds less than MAX_HOLD_MICROS', () => {
    expect(MAX_HOLD_MICROS).toBeLessThanOrEqual(2n ** 53n / 32n);
    let largest = 0n;
    for (const m of catalogue.list()) {
      let hold: bigint;
      if (m.type === 'chat') {
        // A full context window of input, 16 choices of the most output the model allows.
        hold = chatHoldMicros(m, {
          inputBytes: 8 * 1024 * 1024,
          imageParts: 100_000,
          maxOutputTokens: outputTokenLimit(m),
          choices: 16,
        });
      } else if (m.type === 'embedding') {
        hold = embeddingHoldMicros(
          m,
          Array.from({ length: 2_048 }, () => 'x'.repeat(4_096)),
        );
      } else if (m.type === 'image') hold = mediaCostMicros(m.pricing, 4);
      else if (m.type === 'tts') hold = mediaCostMicros(m.pricing, 10_000);
      else if (m.type === 'video') hold = mediaCostMicros(m.pricing, 60);
      else continue;
      expect(hold, m.id).toBeLessThan(MAX_HOLD_MICROS);
      if (hold > largest) largest = hold;
    }
    // The documented order of magnitude of the largest bound (money-core.md, "Hold sizing").
    expect(largest).toBeLessThan(10n ** 14n);
  });
});

describe('JSON lengths without recursion', () => {
  it('matches JSON.stringify for ordinary values', () => {
    const value = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      n: 2,
      stream: false,
      x: null,
      e: [],
    };
    expect(jsonCharacterCount(value)).toBe(JSON.stringify(value).length);
    expect(jsonByteCount({ a: 'é' })).toBe(Buffer.byteLength(JSON.stringify({ a: 'é' })));
  });

  it('measures a value nested 100,000 levels deep, where JSON.stringify overflows the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonCharacterCount(deep)).toBe(200_003);
  });
});
