import { describe, expect, it } from 'vitest';
import { toPublicModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { CatalogueError, parseCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { type FixtureDocument, modelAt, validDocument } from './catalogue-fixture.ts';

/** The problems parseCatalogue reports for `doc`; fails the test when the document is accepted. */
function problemsOf(doc: unknown): readonly string[] {
  try {
    parseCatalogue(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogueError);
    return (err as CatalogueError).problems;
  }
  throw new Error('expected the catalogue to be rejected');
}

function edit(change: (doc: FixtureDocument) => void): FixtureDocument {
  const doc = validDocument();
  change(doc);
  return doc;
}

describe('catalogue validation rules', () => {
  it('accepts the valid fixture', () => {
    expect(parseCatalogue(validDocument()).list()).toHaveLength(3);
  });

  it('rejects a missing field, naming entry and field', () => {
    const doc = edit((d) => delete modelAt(d, 0).name);
    expect(problemsOf(doc)).toEqual(['models[0] (openai/gpt-4o): name is required']);
  });

  it('names the entry by index when its id is missing', () => {
    const doc = edit((d) => delete modelAt(d, 2).id);
    expect(problemsOf(doc)).toEqual(['models[2]: id is required']);
  });

  it('rejects a field of the wrong type', () => {
    const doc = edit((d) => {
      modelAt(d, 0).created = '2024-05-13';
      modelAt(d, 1).context_window = 1.5;
      modelAt(d, 2).enabled = 'no';
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): created must be a number',
      'models[1] (groq/openai/gpt-oss-120b): context_window must be a whole number or null',
      'models[2] (openai/dall-e-3): enabled must be true or false',
    ]);
  });

  it('rejects an unknown model field, also inside list_price_usd and routes', () => {
    const doc = edit((d) => {
      modelAt(d, 0).pricing = {};
      modelAt(d, 1).list_price_usd = { unit: '1M_tokens', input: 1, output: 2, currency: 'USD' };
      modelAt(d, 2).routes = [{ provider: 'openai', native_id: 'dall-e-3', weight: 1 }];
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): pricing is not a known field',
      'models[1] (groq/openai/gpt-oss-120b): list_price_usd.currency is not a known field',
      'models[2] (openai/dall-e-3): routes[0].weight is not a known field',
    ]);
  });

  it('rejects an unknown top-level field and a wrong version', () => {
    const doc = edit((d) => {
      d.version = 2;
      d.currency = 'IRT';
    });
    expect(problemsOf(doc)).toEqual(['version must be 1', 'currency is not a known field']);
  });

  it('rejects a document that is not an object or has no models', () => {
    expect(problemsOf([])).toContain('catalogue must be an object');
    expect(problemsOf(edit((d) => (d.models = [])))).toEqual(['models must list at least one model']);
    expect(problemsOf(edit((d) => d.models.push('x' as never)))).toEqual(['models[3]: must be an object']);
  });

  it('rejects an id that is not <provider>/<model_name>', () => {
    const doc = edit((d) => {
      modelAt(d, 0).id = 'gpt-4o';
      modelAt(d, 1).id = 'groq/';
      modelAt(d, 2).id = 'openai/dall e 3';
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (gpt-4o): id "gpt-4o" must have the form <provider>/<model_name>',
      'models[1] (groq/): id "groq/" must have the form <provider>/<model_name>',
      'models[2] (openai/dall e 3): id "openai/dall e 3" must have the form <provider>/<model_name>',
    ]);
  });

  it('rejects an id whose provider part is not a known provider', () => {
    const doc = edit((d) => (modelAt(d, 0).id = 'acme/gpt-4o'));
    const [problem, ...rest] = problemsOf(doc);
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^models\[0\] \(acme\/gpt-4o\): id provider "acme" is not a known provider \(openai, /,
    );
  });

  it('rejects duplicate ids', () => {
    const doc = edit((d) => (modelAt(d, 2).id = 'openai/gpt-4o'));
    expect(problemsOf(doc)).toEqual(['models[2] (openai/gpt-4o): id duplicates models[0] (openai/gpt-4o)']);
  });

  it('rejects an alias used twice, across entries or within one', () => {
    const doc = edit((d) => {
      modelAt(d, 1).aliases = ['gpt-4o-latest'];
      modelAt(d, 2).aliases = ['dalle', 'dalle'];
    });
    expect(problemsOf(doc)).toEqual([
      'models[1] (groq/openai/gpt-oss-120b): aliases[0] "gpt-4o-latest" is already an alias of models[0] (openai/gpt-4o)',
      'models[2] (openai/dall-e-3): aliases[1] "dalle" is already an alias of this model',
    ]);
  });

  it('rejects an alias equal to a model id', () => {
    const doc = edit((d) => (modelAt(d, 2).aliases = ['openai/gpt-4o']));
    expect(problemsOf(doc)).toEqual([
      'models[2] (openai/dall-e-3): aliases[0] must be a short name without spaces or slashes',
      'models[2] (openai/dall-e-3): aliases[0] "openai/gpt-4o" equals the id of models[0] (openai/gpt-4o)',
    ]);
  });

  it("rejects an alias that would shadow another model's bare upstream id", () => {
    const doc = edit((d) => (modelAt(d, 2).aliases = ['gpt-4o']));
    expect(problemsOf(doc)).toEqual([
      'models[2] (openai/dall-e-3): aliases[0] "gpt-4o" shadows the native_id of models[0] (openai/gpt-4o)',
    ]);
  });

  it("allows an alias equal to the model's own upstream id", () => {
    const doc = edit((d) => (modelAt(d, 0).aliases = ['gpt-4o']));
    expect(parseCatalogue(doc).resolve('gpt-4o')?.id).toBe('openai/gpt-4o');
  });

  it('rejects a route whose provider is not known, and an empty route list', () => {
    const doc = edit((d) => {
      modelAt(d, 0).routes = [
        { provider: 'openai', native_id: 'gpt-4o' },
        { provider: 'azure', native_id: 'gpt-4o' },
      ];
      modelAt(d, 1).routes = [];
    });
    const problems = problemsOf(doc);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^models\[0\] \(openai\/gpt-4o\): routes\[1\]\.provider must be a known provider \(/,
    );
    expect(problems[1]).toBe('models[1] (groq/openai/gpt-oss-120b): routes must list at least one route');
  });

  it('rejects a pricing unit that does not fit the model type', () => {
    const doc = edit((d) => {
      modelAt(d, 0).list_price_usd = { unit: 'image', input: 2.5, output: 10 };
      modelAt(d, 2).list_price_usd = { unit: '1M_tokens', input: 0.04 };
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.unit must be 1M_tokens for type chat',
      'models[2] (openai/dall-e-3): list_price_usd.unit must be image for type image',
    ]);
  });

  it('rejects an unknown pricing unit or model type', () => {
    const doc = edit((d) => {
      modelAt(d, 0).list_price_usd = { unit: 'token', input: 2.5, output: 10 };
      modelAt(d, 2).type = 'picture';
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.unit must be one of 1M_tokens, 1K_chars, minute, second, image',
      'models[2] (openai/dall-e-3): type must be one of chat, embedding, image, tts, stt, video, sound',
    ]);
  });

  it('requires an output price for chat models', () => {
    const doc = edit((d) => {
      modelAt(d, 0).list_price_usd = { unit: '1M_tokens', input: 2.5 };
      modelAt(d, 1).list_price_usd = { unit: '1M_tokens', input: 0.15, output: null };
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.output is required for type chat',
      'models[1] (groq/openai/gpt-oss-120b): list_price_usd.output is required for type chat',
    ]);
  });

  it('rejects a capability outside the allowed set', () => {
    const doc = edit((d) => (modelAt(d, 0).capabilities = ['vision', 'telepathy']));
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): capabilities[1] must be one of vision, tools, reasoning, web_search, file_input, flagship, json_schema, streaming, audio_input',
    ]);
  });

  it('rejects negative prices', () => {
    const doc = edit(
      (d) =>
        (modelAt(d, 0).list_price_usd = { unit: '1M_tokens', input: -1, output: -2, cached_input: -0.5 }),
    );
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.input must not be negative',
      'models[0] (openai/gpt-4o): list_price_usd.output must not be negative',
      'models[0] (openai/gpt-4o): list_price_usd.cached_input must not be negative',
    ]);
  });

  it('rejects an exchange rate that is not positive', () => {
    expect(problemsOf(edit((d) => (d.exchange_rate.irt_per_usd = 0)))).toEqual([
      'exchange_rate.irt_per_usd must be a positive number',
    ]);
    expect(problemsOf(edit((d) => (d.exchange_rate.irt_per_usd = -105000)))).toEqual([
      'exchange_rate.irt_per_usd must be a positive number',
    ]);
    expect(problemsOf(edit((d) => delete d.exchange_rate.irt_per_usd))).toEqual([
      'exchange_rate.irt_per_usd is required',
    ]);
  });

  it('rejects an exchange rate date that is not YYYY-MM-DD', () => {
    expect(problemsOf(edit((d) => (d.exchange_rate.as_of = 'November 2026')))).toEqual([
      'exchange_rate.as_of must be a date written YYYY-MM-DD',
    ]);
  });

  it('collects every problem of every entry, not just the first', () => {
    const doc = edit((d) => {
      d.exchange_rate.irt_per_usd = 0;
      delete modelAt(d, 0).native_id;
      modelAt(d, 0).capabilities = ['mind_reading'];
      modelAt(d, 1).id = 'acme/x';
      modelAt(d, 2).list_price_usd = { unit: 'second', input: 0.04 };
      modelAt(d, 2).aliases = ['gpt-oss-120b'];
    });
    expect(problemsOf(doc)).toEqual([
      'exchange_rate.irt_per_usd must be a positive number',
      expect.stringMatching(/^models\[0\] \(openai\/gpt-4o\): capabilities\[0\] must be one of /),
      'models[0] (openai/gpt-4o): native_id is required',
      expect.stringMatching(/^models\[1\] \(acme\/x\): id provider "acme" is not a known provider/),
      'models[2] (openai/dall-e-3): list_price_usd.unit must be image for type image',
      'models[2] (openai/dall-e-3): aliases[0] "gpt-oss-120b" is already an alias of models[1] (acme/x)',
    ]);
  });

  it('still finds a duplicate id when one of the two entries has other problems', () => {
    const doc = edit((d) => {
      modelAt(d, 2).id = 'openai/gpt-4o';
      modelAt(d, 0).created = -1;
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): created must be positive',
      'models[2] (openai/gpt-4o): id duplicates models[0] (openai/gpt-4o)',
    ]);
  });

  it('lists every problem in the error message', () => {
    const doc = edit((d) => {
      delete modelAt(d, 0).name;
      delete modelAt(d, 1).type;
    });
    expect(() => parseCatalogue(doc)).toThrow(
      /models\[0\] \(openai\/gpt-4o\): name is required\n {2}- models\[1\] \(groq\/openai\/gpt-oss-120b\): type is required/,
    );
  });

  it('loads long-context rates in IRT beside the list price, and lists them in the public model', () => {
    const tier = { above_input_tokens: 100_000, input: 5, output: 15, cached_input: 2.5 };
    const doc = edit((d) => {
      modelAt(d, 0).list_price_usd = {
        unit: '1M_tokens',
        input: 2.5,
        output: 10,
        cached_input: 1.25,
        long_context: tier,
      };
    });
    const model = parseCatalogue(doc).get('openai/gpt-4o');
    expect(model?.list_price_usd.long_context).toEqual(tier);
    // 100,000 IRT a dollar in the fixture.
    const irt = { above_input_tokens: 100_000, input: 500_000, output: 1_500_000, cached_input: 250_000 };
    expect(model?.pricing.long_context).toEqual(irt);
    expect(model && toPublicModel(model).pricing.long_context).toEqual(irt);
    const plain = parseCatalogue(doc).get('groq/openai/gpt-oss-120b');
    expect(plain && 'long_context' in toPublicModel(plain).pricing).toBe(false);
  });

  it('rejects long-context rates off chat models, out of reach of the context window, or half priced for cache', () => {
    const doc = edit((d) => {
      const tier = { above_input_tokens: 100_000, input: 5, output: 15 };
      modelAt(d, 0).list_price_usd = {
        unit: '1M_tokens',
        input: 2.5,
        output: 10,
        cached_input: 1.25,
        long_context: { ...tier, above_input_tokens: 128_000, cached_input: 2.5 },
      };
      modelAt(d, 1).list_price_usd = {
        unit: '1M_tokens',
        input: 0.15,
        output: 0.6,
        long_context: { ...tier, cached_input: 1 },
      };
      modelAt(d, 2).list_price_usd = { unit: 'image', input: 0.04, long_context: tier };
    });
    expect(problemsOf(doc)).toEqual([
      'models[0] (openai/gpt-4o): list_price_usd.long_context.above_input_tokens must be below the context window (128000): no prompt could reach it',
      'models[1] (groq/openai/gpt-oss-120b): list_price_usd.long_context.cached_input is set exactly when list_price_usd.cached_input is: cached input is priced in both tiers or in neither',
      'models[2] (openai/dall-e-3): list_price_usd.long_context is only for type chat',
    ]);
  });
});
