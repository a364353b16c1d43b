import { describe, expect, it } from 'vitest';
import {
  AnthropicUsageAccumulator,
  anthropicResponseUsage,
} from '../../../../../shared/src/native/anthropic/usage.ts';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import { observed } from '../../../../../shared/src/native/stream/usage-accumulator.ts';
import { chunkings, utf8 } from '../chunking.ts';

// A Message as the Messages API reference documents it, with prompt caching (1-hour writes) and
// one web search (https://docs.anthropic.com/en/api/messages, .../tool-use/web-search-tool).
const MESSAGE = {
  id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 2095,
    cache_creation_input_tokens: 2051,
    cache_read_input_tokens: 1200,
    cache_creation: { ephemeral_5m_input_tokens: 51, ephemeral_1h_input_tokens: 2000 },
    output_tokens: 503,
    output_tokens_details: { thinking_tokens: 120 },
    server_tool_use: { web_search_requests: 1, web_fetch_requests: 2 },
    service_tier: 'standard',
  },
};

// The documented basic stream (https://docs.anthropic.com/en/docs/build-with-claude/streaming),
// input counts at message_start, cumulative output and server tool use in message_delta.
const STREAM = [
  'event: message_start',
  'data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5-20250929", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 40, "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200}, "output_tokens": 1}}}',
  '',
  'event: content_block_start',
  'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}',
  '',
  'event: ping',
  'data: {"type": "ping"}',
  '',
  'event: content_block_delta',
  'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Grüß dich 😀"}}',
  '',
  'event: content_block_stop',
  'data: {"type": "content_block_stop", "index": 0}',
  '',
  'event: message_delta',
  'data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"input_tokens": null, "cache_creation_input_tokens": null, "cache_read_input_tokens": null, "output_tokens": 15, "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0}}}',
  '',
  'event: message_stop',
  'data: {"type": "message_stop"}',
  '',
  '',
].join('\n');

const STREAM_USAGE = tokenUsage({
  inputTokens: 25,
  cacheReadTokens: 40,
  cacheWrite5mTokens: 100,
  cacheWrite1hTokens: 200,
  outputTokens: 15,
  webSearchRequests: 2,
});

describe('Anthropic Messages usage', () => {
  it('splits a Message usage by price: uncached input, cache reads, 5m and 1h writes, output, searches', () => {
    expect(anthropicResponseUsage(MESSAGE)).toEqual(
      tokenUsage({
        inputTokens: 2095,
        cacheReadTokens: 1200,
        cacheWrite5mTokens: 51,
        cacheWrite1hTokens: 2000,
        outputTokens: 503,
        reasoningTokens: 120,
        webSearchRequests: 1,
      }),
    );
  });

  it('takes cache writes without a TTL breakdown as 5-minute writes', () => {
    const usage = { input_tokens: 10, cache_creation_input_tokens: 500, output_tokens: 3 };
    expect(anthropicResponseUsage({ usage })?.cacheWrite5mTokens).toBe(500);
    expect(anthropicResponseUsage({ usage })?.cacheWrite1hTokens).toBe(0);
  });

  it('reports the priority tier as unpriced, and nothing for an answer without usage', () => {
    const usage = { ...MESSAGE.usage, service_tier: 'priority' };
    expect(anthropicResponseUsage({ usage })?.unpriced).toEqual([
      { name: 'priority_tier_requests', quantity: 1 },
    ]);
    expect(anthropicResponseUsage({ type: 'error' })).toBeUndefined();
  });
});

describe('AnthropicUsageAccumulator', () => {
  it('yields the final usage however the stream is cut into chunks', () => {
    for (const chunks of chunkings(utf8(STREAM))) {
      const accumulator = new AnthropicUsageAccumulator();
      for (const chunk of chunks) accumulator.push(chunk);
      expect(accumulator.finish()).toEqual({ usage: STREAM_USAGE, complete: true, problem: undefined });
    }
  });

  it('relays the very same chunks while observing them', async () => {
    const chunks = [utf8(STREAM.slice(0, 333)), utf8(STREAM.slice(333))];
    async function* upstream() {
      yield* chunks;
    }
    const accumulator = new AnthropicUsageAccumulator();
    const relayed: Uint8Array[] = [];
    for await (const chunk of observed(upstream(), accumulator)) relayed.push(chunk);
    expect(relayed).toHaveLength(2);
    expect(relayed[0]).toBe(chunks[0]);
    expect(relayed[1]).toBe(chunks[1]);
    expect(Buffer.concat(relayed).toString()).toBe(STREAM);
    expect(accumulator.finish().usage).toEqual(STREAM_USAGE);
  });

  it('reports what arrived before a cut: the input counted at message_start', () => {
    const accumulator = new AnthropicUsageAccumulator();
    accumulator.push(utf8(STREAM.slice(0, STREAM.indexOf('event: message_delta'))));
    expect(accumulator.finish()).toEqual({
      usage: tokenUsage({
        inputTokens: 25,
        cacheReadTokens: 40,
        cacheWrite5mTokens: 100,
        cacheWrite1hTokens: 200,
        outputTokens: 1,
      }),
      complete: false,
      problem: undefined,
    });
  });

  it('stops observing, and says why, when a usage event is not JSON', () => {
    const accumulator = new AnthropicUsageAccumulator();
    accumulator.push(utf8('event: message_start\ndata: {"type": "message_st\n\n'));
    const result = accumulator.finish();
    expect(result.usage).toBeUndefined();
    expect(result.problem).toMatch(/not JSON/);
  });
});
