import { describe, expect, it } from 'vitest';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import { ResponsesUsageAccumulator, responsesUsage } from '../../../../../shared/src/native/openai/usage.ts';
import { chunkings, utf8 } from '../chunking.ts';

// A Response as the API reference documents it (https://platform.openai.com/docs/api-reference/responses/object).
const RESPONSE = {
  id: 'resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41',
  object: 'response',
  created_at: 1741476777,
  status: 'completed',
  model: 'gpt-5-2025-08-07',
  output: [
    { type: 'reasoning', id: 'rs_1', summary: [] },
    {
      type: 'web_search_call',
      id: 'ws_1',
      status: 'completed',
      action: { type: 'search', query: 'weather' },
    },
    {
      type: 'web_search_call',
      id: 'ws_2',
      status: 'completed',
      action: { type: 'open_page', url: 'https://x' },
    },
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
    },
  ],
  service_tier: 'default',
  usage: {
    input_tokens: 328,
    input_tokens_details: { cached_tokens: 128 },
    output_tokens: 52,
    output_tokens_details: { reasoning_tokens: 40 },
    total_tokens: 380,
  },
};

const event = (type: string, body: Record<string, unknown>, sequence: number) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...body, sequence_number: sequence })}\n\n`;

// The documented event sequence (https://platform.openai.com/docs/api-reference/responses-streaming):
// usage is null until the final event, which carries the whole response.
const STREAM = [
  event('response.created', { response: { ...RESPONSE, status: 'in_progress', output: [], usage: null } }, 0),
  event(
    'response.in_progress',
    { response: { ...RESPONSE, status: 'in_progress', output: [], usage: null } },
    1,
  ),
  event(
    'response.output_text.delta',
    { item_id: 'msg_1', output_index: 3, content_index: 0, delta: 'Sun 😀' },
    2,
  ),
  event(
    'response.output_text.done',
    { item_id: 'msg_1', output_index: 3, content_index: 0, text: 'Sunny.' },
    3,
  ),
  event('response.completed', { response: RESPONSE }, 4),
].join('');

const EXPECTED = tokenUsage({
  inputTokens: 200,
  cacheReadTokens: 128,
  outputTokens: 52,
  reasoningTokens: 40,
  webSearchRequests: 2,
});

describe('OpenAI Responses usage', () => {
  it('splits cached input, counts reasoning as output and web_search_call items as searches', () => {
    expect(responsesUsage(RESPONSE)).toEqual(EXPECTED);
  });

  it('reports built-in tool calls, cache writes and other tiers as unpriced', () => {
    const response = {
      ...RESPONSE,
      service_tier: 'flex',
      output: [
        { type: 'file_search_call' },
        { type: 'code_interpreter_call' },
        { type: 'image_generation_call' },
      ],
      usage: { ...RESPONSE.usage, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 100 } },
    };
    expect(responsesUsage(response)?.unpriced).toEqual([
      { name: 'cache_write_tokens', quantity: 100 },
      { name: 'file_search_calls', quantity: 1 },
      { name: 'code_interpreter_calls', quantity: 1 },
      { name: 'image_generation_calls', quantity: 1 },
      { name: 'flex_tier_requests', quantity: 1 },
    ]);
    expect(responsesUsage(response)?.inputTokens).toBe(228);
  });

  it('has no usage for a response without one', () => {
    expect(responsesUsage({ ...RESPONSE, usage: null })).toBeUndefined();
  });
});

describe('ResponsesUsageAccumulator', () => {
  it('yields the usage of response.completed however the stream is cut', () => {
    const bytes = utf8(STREAM);
    for (const chunks of chunkings(bytes).filter((_, i) => i % 7 === 0 || i < 2)) {
      const accumulator = new ResponsesUsageAccumulator();
      for (const chunk of chunks) accumulator.push(chunk);
      expect(accumulator.finish()).toEqual({ usage: EXPECTED, complete: true, problem: undefined });
    }
  });

  it('bills response.incomplete and response.failed like response.completed', () => {
    for (const type of ['response.incomplete', 'response.failed']) {
      const accumulator = new ResponsesUsageAccumulator();
      accumulator.push(utf8(event(type, { response: { ...RESPONSE, status: type.slice(9) } }, 9)));
      expect(accumulator.finish()).toEqual({ usage: EXPECTED, complete: true, problem: undefined });
    }
  });

  it('has no usage when the stream was cut before its final event', () => {
    const accumulator = new ResponsesUsageAccumulator();
    accumulator.push(utf8(STREAM.slice(0, STREAM.indexOf('event: response.completed'))));
    expect(accumulator.finish()).toEqual({ usage: undefined, complete: false, problem: undefined });
  });
});
