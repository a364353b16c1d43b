/**
 * A small valid catalogue document for rule tests. Each call returns a fresh deep copy, so a test
 * can break exactly one thing and expect exactly the problems that follow from it.
 */
export interface FixtureDocument {
  version: unknown;
  exchange_rate: Record<string, unknown>;
  models: Record<string, unknown>[];
  [key: string]: unknown;
}

const DOCUMENT: FixtureDocument = {
  version: 1,
  exchange_rate: { irt_per_usd: 100000, as_of: '2026-11-01', note: 'test rate' },
  models: [
    {
      id: 'openai/gpt-4o',
      name: 'GPT-4o',
      type: 'chat',
      owned_by: 'openai',
      created: 1715558400,
      context_window: 128000,
      max_output_tokens: 16384,
      capabilities: ['vision', 'tools'],
      native_id: 'gpt-4o',
      list_price_usd: { unit: '1M_tokens', input: 2.5, output: 10, cached_input: 1.25 },
      routes: [
        { provider: 'openai', native_id: 'gpt-4o' },
        { provider: 'openai', native_id: 'gpt-4o-2024-08-06' },
      ],
      aliases: ['gpt-4o-latest'],
    },
    {
      id: 'groq/openai/gpt-oss-120b',
      name: 'GPT-OSS 120B',
      type: 'chat',
      owned_by: 'groq',
      created: 1754352000,
      context_window: 131072,
      max_output_tokens: null,
      capabilities: ['reasoning'],
      native_id: 'openai/gpt-oss-120b',
      list_price_usd: { unit: '1M_tokens', input: 0.15, output: 0.6 },
      routes: [{ provider: 'groq', native_id: 'openai/gpt-oss-120b' }],
      aliases: ['gpt-oss-120b'],
    },
    {
      id: 'openai/dall-e-3',
      name: 'DALL·E 3',
      type: 'image',
      owned_by: 'openai',
      created: 1699228800,
      context_window: null,
      max_output_tokens: null,
      capabilities: [],
      native_id: 'dall-e-3',
      list_price_usd: { unit: 'image', input: 0.04 },
      routes: [{ provider: 'openai', native_id: 'dall-e-3' }],
      aliases: [],
      enabled: false,
    },
  ],
};

export function validDocument(): FixtureDocument {
  return structuredClone(DOCUMENT);
}

/** The fixture's model at `index`, for in-place edits; fails loudly if the fixture changes shape. */
export function modelAt(doc: FixtureDocument, index: number): Record<string, unknown> {
  const model = doc.models[index];
  if (!model) throw new Error(`fixture has no model ${index}`);
  return model;
}
