/**
 * Anthropic bodies and event streams as documented (Messages API reference, streaming guide, tool
 * use, extended thinking and web search tool pages at docs.anthropic.com), lightly trimmed.
 */
import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../../../../../shared/src/providers/chat-types.ts';

/** Splits SSE text into events the way the gateway's reader hands them to a translator. */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => events.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }),
  });
  parser.feed(text);
  return events;
}

/** SSE text from `[event name, data object]` pairs. */
export function sse(...frames: [string, unknown][]): string {
  return frames.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

export const textMessage = {
  id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 2095, output_tokens: 503 },
};

export const toolUseMessage = {
  id: 'msg_01Aq9w938a90dw8q',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [
    { type: 'text', text: "I'll check the current weather in San Francisco for you." },
    {
      type: 'tool_use',
      id: 'toolu_01A09q90qw90lq917835lq9',
      name: 'get_weather',
      input: { location: 'San Francisco, CA', unit: 'celsius' },
    },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 400,
    output_tokens: 60,
    cache_creation_input_tokens: 100,
    cache_read_input_tokens: 1500,
  },
};

export const thinkingMessage = {
  id: 'msg_thinking',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [
    {
      type: 'thinking',
      thinking: 'Let me analyze this step by step...',
      signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....',
    },
    {
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP...',
    },
    { type: 'text', text: 'Based on my analysis...' },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 50, output_tokens: 900, output_tokens_details: { thinking_tokens: 700 } },
};

export const webSearchMessage = {
  id: 'msg_websearch',
  type: 'message',
  role: 'assistant',
  model: 'claude-opus-4-5-20251101',
  content: [
    { type: 'text', text: "I'll search for when Claude Shannon was born." },
    {
      type: 'server_tool_use',
      id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
      name: 'web_search',
      input: { query: 'claude shannon birth date' },
    },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
      content: [
        {
          type: 'web_search_result',
          url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
          title: 'Claude Shannon - Wikipedia',
          encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y...',
          page_age: 'April 30, 2025',
        },
      ],
    },
    {
      type: 'text',
      text: 'Claude Shannon was born on April 30, 1916, in Petoskey, Michigan',
      citations: [
        {
          type: 'web_search_result_location',
          url: 'https://en.wikipedia.org/wiki/Claude_Shannon',
          title: 'Claude Shannon - Wikipedia',
          encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm..',
          cited_text:
            'Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician...',
        },
        {
          type: 'web_search_result_location',
          url: 'https://www.britannica.com/biography/Claude-Shannon',
          title: 'Claude Shannon | Britannica',
          encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm..',
          cited_text: 'Claude Shannon, American mathematician and electrical engineer...',
        },
      ],
    },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 6039, output_tokens: 931, server_tool_use: { web_search_requests: 1 } },
};

const start = (usage: Record<string, unknown>) => ({
  type: 'message_start',
  message: {
    id: 'msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-sonnet-4-5-20250929',
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});

/** The streaming guide's basic example. */
export const textStream = sse(
  ['message_start', start({ input_tokens: 25, output_tokens: 1 })],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  ['ping', { type: 'ping' }],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '!' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 15 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
);

const jsonDelta = (index: number, partial_json: string) => [
  'content_block_delta',
  { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
];

/** The streaming guide's tool-use example (text, then a tool_use block), plus a second tool call. */
export const toolStream = sse(
  ['message_start', start({ input_tokens: 472, output_tokens: 2, cache_read_input_tokens: 100 })],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Okay, let me check.' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 1,
      content_block: {
        type: 'tool_use',
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        input: {},
      },
    },
  ],
  jsonDelta(1, '') as [string, unknown],
  jsonDelta(1, '{"location":') as [string, unknown],
  jsonDelta(1, ' "San Francisco, CA", ') as [string, unknown],
  jsonDelta(1, '"unit": "fahrenheit"}') as [string, unknown],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 'toolu_02', name: 'get_time', input: {} },
    },
  ],
  jsonDelta(2, '{"tz": "PST"}') as [string, unknown],
  ['content_block_stop', { type: 'content_block_stop', index: 2 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 89 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
);
