import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CatalogueModel, toPublicModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { MODEL_TYPES, UNIT_BY_TYPE } from '../../../../shared/src/catalogue/catalogue-schema.ts';
import { loadCatalogue, parseCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { modelAt, validDocument } from './catalogue-fixture.ts';

const MODELS_JSON = new URL('../../../../shared/src/catalogue/models.json', import.meta.url);

describe('the shipped models.json', () => {
  const catalogue = loadCatalogue();
  const models = catalogue.list();
  const providerOf = (model: CatalogueModel) => model.id.slice(0, model.id.indexOf('/'));

  it('loads from the default path and lists every entry in file order', () => {
    const file = JSON.parse(readFileSync(MODELS_JSON, 'utf8')) as { models: { id: string }[] };
    expect(models.map((m) => m.id)).toEqual(file.models.map((m) => m.id));
    expect(catalogue.list()).toBe(models);
  });

  it('offers more than 80 models from at least 6 real providers, covering every type', () => {
    expect(models.length).toBeGreaterThanOrEqual(80);
    const realProviders = new Set(models.map(providerOf).filter((p) => p !== 'demo'));
    expect(realProviders.size).toBeGreaterThanOrEqual(6);
    for (const type of MODEL_TYPES) {
      expect(
        models.some((m) => m.type === type && providerOf(m) !== 'demo'),
        type,
      ).toBe(true);
    }
  });

  it('has a demo simulator model of every type, labelled and cheaply but not freely priced', () => {
    const demo = models.filter((m) => providerOf(m) === 'demo');
    expect(new Set(demo.map((m) => m.type))).toEqual(new Set(MODEL_TYPES));
    for (const model of demo) {
      expect(model.name).toMatch(/simulator/);
      expect(model.routes.every((r) => r.provider === 'demo')).toBe(true);
      expect(model.pricing.input).toBeGreaterThan(0);
    }
  });

  it('prices every model in IRT in the unit its type uses', () => {
    for (const model of models) {
      expect(model.pricing.currency).toBe('IRT');
      expect(model.pricing.unit).toBe(UNIT_BY_TYPE[model.type]);
      if (model.type === 'chat') expect(model.pricing.output).not.toBeNull();
    }
  });

  it('converts list prices with the stated exchange rate', () => {
    expect(catalogue.exchangeRate).toMatchObject({ irtPerUsd: 105000, asOf: '2026-11-01' });
    const gpt4o = catalogue.get('openai/gpt-4o');
    expect(gpt4o?.list_price_usd).toEqual({ unit: '1M_tokens', input: 2.5, output: 10, cached_input: 1.25 });
    expect(gpt4o?.pricing).toEqual({
      currency: 'IRT',
      unit: '1M_tokens',
      input: 262500,
      output: 1050000,
      cached_input: 131250,
    });
  });

  it('has alternative routes for some models', () => {
    expect(models.filter((m) => m.routes.length > 1).length).toBeGreaterThanOrEqual(3);
  });

  it('is deeply frozen', () => {
    const model = models[0] as CatalogueModel;
    expect(Object.isFrozen(models)).toBe(true);
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(model.pricing)).toBe(true);
    expect(Object.isFrozen(model.routes[0])).toBe(true);
    expect(Object.isFrozen(model.aliases)).toBe(true);
    expect(Object.isFrozen(catalogue)).toBe(true);
  });

  it('resolves real aliases and bare upstream ids', () => {
    expect(catalogue.resolve('claude-sonnet')?.id).toBe('anthropic/claude-sonnet-4-5');
    expect(catalogue.resolve('claude-sonnet-4-5-20250929')?.id).toBe('anthropic/claude-sonnet-4-5');
    expect(catalogue.resolve('gpt-4o')?.id).toBe('openai/gpt-4o');
    expect(catalogue.resolve('openai/gpt-oss-120b')?.id).toBe('groq/openai/gpt-oss-120b');
    expect(catalogue.resolve('demo')?.id).toBe('demo/chat');
  });
});

describe('catalogue lookups', () => {
  const catalogue = parseCatalogue(validDocument());

  it('gets a model by exact id only', () => {
    expect(catalogue.get('openai/gpt-4o')?.name).toBe('GPT-4o');
    expect(catalogue.get('gpt-4o')).toBeUndefined();
    expect(catalogue.get('OPENAI/GPT-4O')).toBeUndefined();
  });

  it('resolves an exact id, an id that contains slashes, an alias and a bare upstream id', () => {
    expect(catalogue.resolve('openai/gpt-4o')?.id).toBe('openai/gpt-4o');
    expect(catalogue.resolve('groq/openai/gpt-oss-120b')?.id).toBe('groq/openai/gpt-oss-120b');
    expect(catalogue.resolve('gpt-4o-latest')?.id).toBe('openai/gpt-4o');
    expect(catalogue.resolve('gpt-4o')?.id).toBe('openai/gpt-4o');
    expect(catalogue.resolve('openai/gpt-oss-120b')?.id).toBe('groq/openai/gpt-oss-120b');
  });

  it('prefers an exact id over a bare upstream id of the same spelling', () => {
    const doc = validDocument();
    modelAt(doc, 2).id = 'openai/gpt-oss-120b';
    const shadowing = parseCatalogue(doc);
    expect(shadowing.resolve('openai/gpt-oss-120b')?.id).toBe('openai/gpt-oss-120b');
  });

  it('resolves an upstream id shared by several models to nothing', () => {
    const doc = validDocument();
    modelAt(doc, 2).native_id = 'gpt-4o';
    const ambiguous = parseCatalogue(doc);
    expect(ambiguous.resolve('gpt-4o')).toBeUndefined();
    expect(ambiguous.resolve('gpt-4o-latest')?.id).toBe('openai/gpt-4o');
    expect(ambiguous.resolve('openai/dall-e-3')?.id).toBe('openai/dall-e-3');
  });

  it('resolves unknown names, route-only upstream ids and case variants to nothing', () => {
    expect(catalogue.resolve('gpt-5')).toBeUndefined();
    expect(catalogue.resolve('gpt-4o-2024-08-06')).toBeUndefined();
    expect(catalogue.resolve('GPT-4O')).toBeUndefined();
    expect(catalogue.resolve('')).toBeUndefined();
  });

  it('keeps disabled models, marked as such, and defaults enabled to true', () => {
    expect(catalogue.get('openai/dall-e-3')?.enabled).toBe(false);
    expect(catalogue.get('openai/gpt-4o')?.enabled).toBe(true);
    expect(catalogue.resolve('dall-e-3')?.enabled).toBe(false);
  });

  it('keeps routes in order and aliases', () => {
    expect(catalogue.get('openai/gpt-4o')?.routes).toEqual([
      { provider: 'openai', native_id: 'gpt-4o' },
      { provider: 'openai', native_id: 'gpt-4o-2024-08-06' },
    ]);
    expect(catalogue.get('openai/gpt-4o')?.aliases).toEqual(['gpt-4o-latest']);
  });
});

describe('toPublicModel', () => {
  const catalogue = parseCatalogue(validDocument());

  it("returns the spec's Model object with IRT pricing", () => {
    expect(toPublicModel(catalogue.get('openai/gpt-4o') as CatalogueModel)).toStrictEqual({
      id: 'openai/gpt-4o',
      object: 'model',
      created: 1715558400,
      owned_by: 'openai',
      name: 'GPT-4o',
      type: 'chat',
      context_window: 128000,
      max_output_tokens: 16384,
      capabilities: ['vision', 'tools'],
      pricing: { currency: 'IRT', unit: '1M_tokens', input: 250000, output: 1000000, cached_input: 125000 },
      native_id: 'gpt-4o',
    });
  });

  it('uses null for prices and limits a model does not have', () => {
    const image = toPublicModel(catalogue.get('openai/dall-e-3') as CatalogueModel);
    expect(image.pricing).toStrictEqual({
      currency: 'IRT',
      unit: 'image',
      input: 4000,
      output: null,
      cached_input: null,
    });
    expect(image.context_window).toBeNull();
    expect(image.max_output_tokens).toBeNull();
  });

  it('leaves out routes, aliases, list prices and the enabled flag', () => {
    const keys = Object.keys(toPublicModel(catalogue.get('openai/gpt-4o') as CatalogueModel));
    for (const internal of ['routes', 'aliases', 'list_price_usd', 'enabled'])
      expect(keys).not.toContain(internal);
  });

  it('serves every shipped model with all spec fields present', () => {
    for (const model of loadCatalogue().list()) {
      const pub = toPublicModel(model);
      expect(Object.keys(pub).sort()).toEqual(
        [
          'capabilities',
          'context_window',
          'created',
          'id',
          'max_output_tokens',
          'name',
          'native_id',
          'object',
          'owned_by',
          'pricing',
          'type',
        ].sort(),
      );
      expect(Number.isInteger(pub.created)).toBe(true);
    }
  });
});
