import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { unpricedRequestParts } from '../../../../shared/src/native/unpriced-request.ts';

const catalogue = loadCatalogue();
const model = (id: string) => catalogue.get(id) as CatalogueModel;

describe('unpricedRequestParts', () => {
  it('passes an Anthropic request whose web search and cache writes are priced', () => {
    const body = {
      model: 'sonnet',
      system: [{ type: 'text', text: 'long', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      ],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    };
    expect(unpricedRequestParts('anthropic', model('anthropic/claude-sonnet-4-5'), body)).toEqual([]);
    expect(unpricedRequestParts('anthropic', model('anthropic/claude-3-haiku'), body)).toEqual([
      'web_search',
    ]);
  });

  it('names Anthropic code execution, which has no catalogue price', () => {
    const body = { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] };
    expect(unpricedRequestParts('anthropic', model('anthropic/claude-sonnet-4-5'), body)).toEqual([
      'code_execution',
    ]);
  });

  it('names Responses built-in tools, background mode and other tiers', () => {
    const body = {
      tools: [
        { type: 'web_search' },
        { type: 'file_search', vector_store_ids: [] },
        { type: 'function', name: 'f' },
      ],
      background: true,
      service_tier: 'priority',
    };
    expect(unpricedRequestParts('openai-responses', model('openai/gpt-5'), body)).toEqual([
      'web_search',
      'file_search_calls',
      'background_responses',
      'priority_tier_requests',
    ]);
    expect(unpricedRequestParts('openai-responses', model('openai/gpt-5'), { input: 'hi' })).toEqual([]);
  });

  it('names Gemini grounding and audio input', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'audio/mp3', data: 'AA==' } }] },
      ],
      tools: [{ googleSearch: {} }],
    };
    expect(unpricedRequestParts('gemini', model('google/gemini-2.5-flash'), body)).toEqual([
      'google_search_grounding',
      'audio_input_tokens',
    ]);
  });
});
