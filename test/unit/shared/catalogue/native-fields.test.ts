import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import type { NativeModelExtras } from '../../../../shared/src/catalogue/catalogue-schema.ts';
import {
  CatalogueError,
  loadCatalogue,
  parseCatalogue,
} from '../../../../shared/src/catalogue/load-catalogue.ts';
import { type FixtureDocument, modelAt, validDocument } from './catalogue-fixture.ts';

function problemsOf(change: (doc: FixtureDocument) => void): readonly string[] {
  const doc = validDocument();
  change(doc);
  try {
    parseCatalogue(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogueError);
    return (err as CatalogueError).problems;
  }
  throw new Error('expected the catalogue to be rejected');
}

const extras = (model: CatalogueModel | undefined) => model as CatalogueModel & NativeModelExtras;

describe('native price fields', () => {
  it('converts cache-write and web-search prices like every other price', () => {
    const doc = validDocument();
    modelAt(doc, 0).capabilities = ['web_search'];
    modelAt(doc, 0).list_price_usd = {
      unit: '1M_tokens',
      input: 2.5,
      output: 10,
      cached_input: 0.25,
      cache_write_5m: 3.125,
      cache_write_1h: 5,
      web_search_per_1k: 10,
    };
    const model = extras(parseCatalogue(doc).get('openai/gpt-4o'));
    expect(model.pricing).toEqual({
      currency: 'IRT',
      unit: '1M_tokens',
      input: 250000,
      output: 1000000,
      cached_input: 25000,
      cache_write_5m: 312500,
      cache_write_1h: 500000,
      web_search_per_1k: 1000000,
    });
    expect(model.list_price_usd).toMatchObject({
      cache_write_5m: 3.125,
      cache_write_1h: 5,
      web_search_per_1k: 10,
    });
    expect(Object.isFrozen(model.pricing)).toBe(true);
  });

  it('adds nothing to a model that sets none of them', () => {
    const model = parseCatalogue(validDocument()).get('openai/gpt-4o');
    expect(Object.keys(model?.pricing ?? {}).sort()).toEqual([
      'cached_input',
      'currency',
      'input',
      'output',
      'unit',
    ]);
    expect(model).not.toHaveProperty('unsupported_params');
  });

  it('rejects them on non-chat types, negative values, and a web-search fee without the capability', () => {
    expect(
      problemsOf((d) => {
        modelAt(d, 0).list_price_usd = {
          unit: '1M_tokens',
          input: 1,
          output: 2,
          web_search_per_1k: 10,
          cache_write_1h: -1,
        };
        modelAt(d, 2).list_price_usd = { unit: 'image', input: 0.04, cache_write_5m: 1 };
      }),
    ).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.cache_write_1h must not be negative',
      'models[0] (openai/gpt-4o): list_price_usd.web_search_per_1k needs the web_search capability',
      'models[2] (openai/dall-e-3): list_price_usd.cache_write_5m is only for type chat',
    ]);
    expect(
      problemsOf((d) => {
        modelAt(d, 0).list_price_usd = { unit: '1M_tokens', input: 1, output: 2, web_search_per_1k: 10 };
      }),
    ).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.web_search_per_1k needs the web_search capability',
    ]);
  });
});

describe('request parameter rules', () => {
  it('loads them frozen', () => {
    const doc = validDocument();
    Object.assign(modelAt(doc, 0), {
      unsupported_params: ['logit_bias'],
      fixed_params: { temperature: 1, logprobs: false },
      reasoning_none_allows: ['temperature'],
    });
    const model = extras(parseCatalogue(doc).get('openai/gpt-4o'));
    expect(model.unsupported_params).toEqual(['logit_bias']);
    expect(model.fixed_params).toEqual({ temperature: 1, logprobs: false });
    expect(model.reasoning_none_allows).toEqual(['temperature']);
    expect(Object.isFrozen(model.fixed_params)).toBe(true);
  });

  it('rejects bad names, values, repeats and contradictions', () => {
    expect(
      problemsOf((d) => {
        Object.assign(modelAt(d, 0), {
          unsupported_params: ['Temperature', 'top_p', 'top_p'],
          fixed_params: { top_p: 1, seed: [1] },
          reasoning_none_allows: ['logit_bias'],
        });
      }),
    ).toEqual([
      'models[0] (openai/gpt-4o): unsupported_params[0] must be a request parameter name (snake_case)',
      'models[0] (openai/gpt-4o): fixed_params.seed must be a number, true or false, a string or null',
    ]);
    expect(
      problemsOf((d) => {
        Object.assign(modelAt(d, 0), {
          unsupported_params: ['top_p', 'top_p'],
          fixed_params: { top_p: 1 },
          reasoning_none_allows: ['logit_bias', 'top_p', 'top_p'],
        });
      }),
    ).toEqual([
      'models[0] (openai/gpt-4o): unsupported_params[0] top_p is also in fixed_params: a parameter is either refused or fixed',
      'models[0] (openai/gpt-4o): unsupported_params[1] names top_p twice',
      'models[0] (openai/gpt-4o): unsupported_params[1] top_p is also in fixed_params: a parameter is either refused or fixed',
      'models[0] (openai/gpt-4o): reasoning_none_allows[0] logit_bias is neither in unsupported_params nor in fixed_params',
      'models[0] (openai/gpt-4o): reasoning_none_allows[2] names top_p twice',
    ]);
  });
});

describe('the shipped native prices', () => {
  const catalogue = loadCatalogue();
  const anthropic = catalogue.list().filter((m) => m.id.startsWith('anthropic/'));

  it('gives every Anthropic model its published cache prices: 5m 1.25×, 1h 2×, read 0.1× input', () => {
    for (const model of anthropic.map(extras)) {
      const usd = model.list_price_usd;
      if (model.id === 'anthropic/claude-3-haiku') {
        // Haiku 3's published prices round differently: $0.30 / $0.50 / $0.03 on $0.25 input.
        expect([usd.cache_write_5m, usd.cache_write_1h, usd.cached_input]).toEqual([0.3, 0.5, 0.03]);
        continue;
      }
      expect(usd.cache_write_5m).toBeCloseTo(usd.input * 1.25, 10);
      expect(usd.cache_write_1h).toBeCloseTo(usd.input * 2, 10);
      expect(usd.cached_input).toBeCloseTo(usd.input * 0.1, 10);
    }
  });

  it('charges $10 per 1,000 web searches on every Anthropic model that can search, in IRT at the file rate', () => {
    for (const model of anthropic.map(extras)) {
      const searches = model.capabilities.includes('web_search');
      expect(model.list_price_usd.web_search_per_1k).toBe(searches ? 10 : undefined);
      expect(model.pricing.web_search_per_1k).toBe(
        searches ? 10 * catalogue.exchangeRate.irtPerUsd : undefined,
      );
    }
  });
});
