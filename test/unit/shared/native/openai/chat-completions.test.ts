import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../../shared/src/catalogue/load-catalogue.ts';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import {
  ChatCompletionsUsageAccumulator,
  chatCompletionsUnpricedParts,
  chatCompletionsUsage,
  chatStreamReportsUsage,
  mapChatCompletionsModel,
} from '../../../../../shared/src/native/openai/chat-completions.ts';
import { chunkings, text, utf8 } from '../chunking.ts';

const catalogue = loadCatalogue();
const model = (id: string) => catalogue.get(id) as CatalogueModel;

// A completion's usage as the API reference documents it (https://platform.openai.com/docs/api-reference/chat/object).
const USAGE = {
  prompt_tokens: 2006,
  completion_tokens: 300,
  total_tokens: 2306,
  prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 256,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};
const EXPECTED = tokenUsage({
  inputTokens: 86,
  cacheReadTokens: 1920,
  outputTokens: 300,
  reasoningTokens: 256,
});

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta }], usage: null, ...extra })}\n\n`;

// With stream_options.include_usage: every chunk has `usage: null`, then a usage chunk, then [DONE].
const STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'The "usage": {' }),
  chunk({ content: ' 😀 done' }),
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: USAGE })}\n\n`,
  'data: [DONE]\n\n',
].join('');

describe('Chat Completions usage', () => {
  it('splits cached input and counts reasoning as output', () => {
    expect(
      chatCompletionsUsage({ object: 'chat.completion', usage: USAGE, service_tier: 'default' }),
    ).toEqual(EXPECTED);
  });

  it('reports cache writes, audio tokens and other tiers as unpriced', () => {
    const usage = {
      ...USAGE,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 6, audio_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 5 },
    };
    const found = chatCompletionsUsage({ usage, service_tier: 'priority' });
    expect(found?.unpriced).toEqual([
      { name: 'cache_write_tokens', quantity: 6 },
      { name: 'audio_tokens', quantity: 15 },
      { name: 'priority_tier_requests', quantity: 1 },
    ]);
    expect(found?.inputTokens).toBe(2000);
  });

  it('has no usage for an answer without one', () => {
    expect(chatCompletionsUsage({ object: 'chat.completion' })).toBeUndefined();
    expect(chatCompletionsUsage(null)).toBeUndefined();
  });
});

describe('ChatCompletionsUsageAccumulator', () => {
  it('yields the usage chunk, complete at [DONE], however the stream is cut', () => {
    for (const chunks of chunkings(utf8(STREAM)).filter((_, i) => i % 5 === 0 || i < 2)) {
      const accumulator = new ChatCompletionsUsageAccumulator();
      for (const piece of chunks) accumulator.push(piece);
      expect(accumulator.finish()).toEqual({ usage: EXPECTED, complete: true, problem: undefined });
    }
  });

  it('is incomplete without [DONE], and after an error event', () => {
    const cut = new ChatCompletionsUsageAccumulator();
    cut.push(utf8(STREAM.slice(0, STREAM.indexOf('data: [DONE]'))));
    expect(cut.finish()).toEqual({ usage: EXPECTED, complete: false, problem: undefined });
    const failed = new ChatCompletionsUsageAccumulator();
    failed.push(utf8(chunk({ content: 'Hi' })));
    failed.push(utf8(`data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error' } })}\n\n`));
    failed.push(utf8('data: [DONE]\n\n'));
    expect(failed.finish()).toMatchObject({ usage: undefined, complete: false });
  });

  it('stops observing (a problem) at a usage chunk that is not JSON', () => {
    const accumulator = new ChatCompletionsUsageAccumulator();
    accumulator.push(utf8('data: {"usage": {"prompt_tokens": \n\ndata: [DONE]\n\n'));
    expect(accumulator.finish().problem).toBe('a chat completion chunk is not JSON');
  });
});

describe('Chat Completions requests', () => {
  it('maps the model name and rewrites only its value', () => {
    const body = utf8('{"messages":[], "model" : "gpt4o-typo"}');
    expect(() => mapChatCompletionsModel(body, catalogue)).toThrow(/does not exist/);
    const mapped = mapChatCompletionsModel(utf8('{"messages":[], "model" : "gpt-4o-latest"}'), catalogue);
    expect(mapped.model.id).toBe('openai/gpt-4o');
    const dated = mapped.routes[1];
    if (dated === undefined) throw new Error('gpt-4o has a second route');
    expect(text(mapped.body(dated))).toBe('{"messages":[], "model" : "gpt-4o-2024-08-06"}');
    // An embedding model is not a chat model.
    expect(() => mapChatCompletionsModel(utf8('{"model":"text-embedding-3-small"}'), catalogue)).toThrow();
  });

  it('names web search (search models, web_search_options) and the flex and priority tiers as unpriced', () => {
    expect(chatCompletionsUnpricedParts(model('openai/gpt-4o'), { messages: [] })).toEqual([]);
    expect(chatCompletionsUnpricedParts(model('openai/gpt-4o-search-preview'), { messages: [] })).toEqual([
      'web_search',
    ]);
    expect(
      chatCompletionsUnpricedParts(model('openai/gpt-4o'), { web_search_options: {}, service_tier: 'flex' }),
    ).toEqual(['web_search', 'flex_tier_requests']);
    expect(chatCompletionsUnpricedParts(model('openai/gpt-4o'), { service_tier: 'auto' })).toEqual([]);
  });

  it('knows whether a stream asks for its usage chunk', () => {
    expect(chatStreamReportsUsage({ stream: true, stream_options: { include_usage: true } })).toBe(true);
    expect(chatStreamReportsUsage({ stream: true, stream_options: { include_usage: false } })).toBe(false);
    expect(chatStreamReportsUsage({ stream: true })).toBe(false);
  });
});
