import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { nativeCost, UnpricedUsageError } from '../../../../shared/src/native/native-cost.ts';
import { tokenUsage } from '../../../../shared/src/native/native-usage.ts';

const catalogue = loadCatalogue();
const model = (id: string) => catalogue.get(id) as CatalogueModel;

function partsRefused(action: () => unknown): readonly string[] {
  try {
    action();
  } catch (error) {
    if (error instanceof UnpricedUsageError) return error.parts;
    throw error;
  }
  throw new Error('expected an UnpricedUsageError');
}

describe('nativeCost', () => {
  it('prices every Anthropic part exactly at the catalogue IRT prices (105,000 IRT/USD)', () => {
    const sonnet = model('anthropic/claude-sonnet-4-5');
    // $3 input, $0.30 cache read, $3.75 5m write, $6 1h write, $15 output per 1M; $10 per 1,000 searches.
    const usage = tokenUsage({
      inputTokens: 1_000_000,
      cacheReadTokens: 1_000_000,
      cacheWrite5mTokens: 1_000_000,
      cacheWrite1hTokens: 1_000_000,
      outputTokens: 1_000_000,
      webSearchRequests: 1_000,
    });
    const usd = 3 + 0.3 + 3.75 + 6 + 15 + 10;
    expect(nativeCost(sonnet, usage)).toBe(BigInt(Math.round(usd * 105_000)) * 1_000_000n);
  });

  it('prices a Gemini 2.5 Pro prompt over 200k tokens at its long-context rates, cache reads counted in', () => {
    const pro = model('google/gemini-2.5-pro');
    // Up to 200k: $1.25 input, $0.125 cached, $10 output; above: $2.50, $0.25, $15 per 1M.
    const short = tokenUsage({ inputTokens: 150_000, cacheReadTokens: 50_000, outputTokens: 1_000 });
    const long = tokenUsage({ inputTokens: 150_000, cacheReadTokens: 50_001, outputTokens: 1_000 });
    const irt = (usd: number) => BigInt(Math.round(usd * 105_000 * 1_000_000));
    expect(nativeCost(pro, short)).toBe(irt(0.15 * 1.25 + 0.05 * 0.125 + 0.001 * 10));
    expect(nativeCost(pro, long)).toBe(irt(0.15 * 2.5 + 0.050001 * 0.25 + 0.001 * 15));
  });

  it('rounds once over all parts, half up', () => {
    const haiku = model('anthropic/claude-haiku-4-5');
    // 1 token at 105,000 IRT / 1M = 0.105 IRT = 105,000 µIRT; a 1h write at 210,000 IRT/1M = 210,000 µIRT;
    // one search at 1,050,000 IRT / 1,000 = 1,050 IRT.
    const usage = tokenUsage({ inputTokens: 1, cacheWrite1hTokens: 1, webSearchRequests: 1 });
    expect(nativeCost(haiku, usage)).toBe(105_000n + 210_000n + 1_050_000_000n);
    expect(nativeCost(haiku, tokenUsage({ reasoningTokens: 5 }))).toBe(0n);
  });

  it('refuses, naming them, parts the model has no price for instead of billing them at zero', () => {
    const gpt = model('openai/gpt-5');
    const usage = tokenUsage({
      inputTokens: 10,
      cacheWrite5mTokens: 5,
      webSearchRequests: 2,
      unpriced: [{ name: 'file_search_calls', quantity: 1 }],
    });
    expect(partsRefused(() => nativeCost(gpt, usage))).toEqual([
      'file_search_calls',
      'cache_write_5m',
      'web_search',
    ]);
    expect(
      partsRefused(() => nativeCost(model('anthropic/claude-3-haiku'), tokenUsage({ webSearchRequests: 1 }))),
    ).toEqual(['web_search']);
  });

  it('refuses a model without the native fields (built by hand) for cache writes', () => {
    const bare = { ...model('anthropic/claude-haiku-4-5'), pricing: { ...model('openai/gpt-4o').pricing } };
    expect(partsRefused(() => nativeCost(bare, tokenUsage({ cacheWrite5mTokens: 1 })))).toEqual([
      'cache_write_5m',
    ]);
  });

  it('prices characters and seconds as the media endpoints do, and refuses the wrong kind', () => {
    // Eleven Flash: $0.05 per 1K characters = 5,250 IRT per 1K.
    expect(nativeCost(model('elevenlabs/eleven_flash_v2_5'), { kind: 'characters', characters: 1500 })).toBe(
      7_875_000_000n,
    );
    // Scribe: $0.00367 per minute = 385.35 IRT per minute; 90 s.
    expect(nativeCost(model('elevenlabs/scribe_v1'), { kind: 'seconds', seconds: 90 })).toBe(578_025_000n);
    // Sound effects: $0.012 per second = 1,260 IRT per second.
    expect(nativeCost(model('elevenlabs/sound-effects'), { kind: 'seconds', seconds: 2.5 })).toBe(
      3_150_000_000n,
    );
    expect(
      partsRefused(() =>
        nativeCost(model('elevenlabs/sound-effects'), { kind: 'characters', characters: 1 }),
      ),
    ).toEqual(['characters']);
    expect(
      partsRefused(() => nativeCost(model('elevenlabs/eleven_v3'), tokenUsage({ inputTokens: 1 }))),
    ).toEqual(['tokens']);
  });
});
