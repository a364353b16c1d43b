import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../../shared/src/providers/anthropic/index.ts';
import {
  type ChatChunk,
  type SseEvent,
  UpstreamProtocolError,
  UpstreamStreamError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { sse, sseEvents, textStream, toolStream } from './fixtures.ts';

// biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
const chat = anthropicAdapter.chat!;

function translate(events: SseEvent[]) {
  const translator = chat.stream();
  const chunks: ChatChunk[] = events.flatMap((event) => translator.onEvent(event));
  return { chunks, usage: translator.finish().usage };
}

const deltas = (chunks: ChatChunk[]) => chunks.map((c) => c.choices[0]?.delta);
const text = (chunks: ChatChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

const messageStart = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) =>
  [
    'message_start',
    { type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', content: [], usage } },
  ] as [string, unknown];
const blockStart = (index: number, content_block: Record<string, unknown>) =>
  ['content_block_start', { type: 'content_block_start', index, content_block }] as [string, unknown];
const blockDelta = (index: number, delta: Record<string, unknown>) =>
  ['content_block_delta', { type: 'content_block_delta', index, delta }] as [string, unknown];
const blockStop = (index: number) =>
  ['content_block_stop', { type: 'content_block_stop', index }] as [string, unknown];
const messageDelta = (stop_reason: string, usage: Record<string, unknown> = { output_tokens: 5 }) =>
  ['message_delta', { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage }] as [
    string,
    unknown,
  ];

describe('Anthropic stream translation', () => {
  it('translates the documented text stream: role first, text deltas, finish, usage', () => {
    const { chunks, usage } = translate(sseEvents(textStream));
    expect(deltas(chunks)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hello' },
      { content: '!' },
      {},
    ]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null, null, 'stop']);
    expect(usage).toEqual({ inputTokens: 25, cachedInputTokens: 0, outputTokens: 15, reasoningTokens: 0 });
  });

  it('gives each tool_use block a stable tool-call index and streams its argument deltas', () => {
    const { chunks, usage } = translate(sseEvents(toolStream));
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 0, function: { arguments: '{"location":' } },
      { index: 0, function: { arguments: ' "San Francisco, CA", ' } },
      { index: 0, function: { arguments: '"unit": "fahrenheit"}' } },
      { index: 1, id: 'toolu_02', type: 'function', function: { name: 'get_time', arguments: '' } },
      { index: 1, function: { arguments: '{"tz": "PST"}' } },
    ]);
    const joined = calls
      .filter((c) => c.index === 0)
      .map((c) => c.function?.arguments)
      .join('');
    expect(JSON.parse(joined)).toEqual({ location: 'San Francisco, CA', unit: 'fahrenheit' });
    expect(text(chunks)).toBe('Okay, let me check.');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(usage).toEqual({ inputTokens: 572, cachedInputTokens: 100, outputTokens: 89, reasoningTokens: 0 });
  });

  it('sends {} as arguments for a tool called without input', () => {
    const events = sseEvents(
      sse(
        messageStart(),
        blockStart(0, { type: 'tool_use', id: 't', name: 'now', input: {} }),
        blockDelta(0, { type: 'input_json_delta', partial_json: '' }),
        blockStop(0),
        messageDelta('tool_use'),
      ),
    );
    const calls = translate(events).chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls.map((c) => c.function?.arguments).join('')).toBe('{}');
  });

  it('streams thinking as reasoning_content and ignores signature deltas', () => {
    const events = sseEvents(
      sse(
        messageStart(),
        blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
        blockDelta(0, { type: 'thinking_delta', thinking: 'Let me solve this step by step:' }),
        blockDelta(0, { type: 'thinking_delta', thinking: '\n\n1. First break down 27 * 453' }),
        blockDelta(0, {
          type: 'signature_delta',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...',
        }),
        blockStop(0),
        blockStart(1, { type: 'redacted_thinking', data: 'abc' }),
        blockStop(1),
        blockStart(2, { type: 'text', text: '' }),
        blockDelta(2, { type: 'text_delta', text: '27 * 453 = 12,231' }),
        blockStop(2),
        messageDelta('end_turn', { output_tokens: 300, output_tokens_details: { thinking_tokens: 250 } }),
        ['message_stop', { type: 'message_stop' }],
      ),
    );
    const { chunks, usage } = translate(events);
    expect(deltas(chunks)).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'Let me solve this step by step:' },
      { reasoning_content: '\n\n1. First break down 27 * 453' },
      { content: '27 * 453 = 12,231' },
      {},
    ]);
    expect(usage).toMatchObject({ outputTokens: 300, reasoningTokens: 250 });
  });

  it('collects web search results and citation deltas into the finish chunk, skipping the query', () => {
    const events = sseEvents(
      sse(
        messageStart(),
        blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
        blockDelta(0, { type: 'input_json_delta', partial_json: '{"query": "weather NYC today"}' }),
        blockStop(0),
        blockStart(1, {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [
            {
              type: 'web_search_result',
              title: 'Weather in New York City',
              url: 'https://weather.com/nyc',
              encrypted_content: 'x',
              page_age: null,
            },
          ],
        }),
        blockStop(1),
        blockStart(2, { type: 'text', text: '' }),
        blockDelta(2, {
          type: 'citations_delta',
          citation: {
            type: 'web_search_result_location',
            url: 'https://news.example.org/nyc',
            title: null,
            cited_text: 'Sunny',
            encrypted_index: 'e',
          },
        }),
        blockDelta(2, {
          type: 'citations_delta',
          citation: {
            type: 'web_search_result_location',
            url: 'https://weather.com/nyc',
            title: 'dup',
            cited_text: 'c',
            encrypted_index: 'e',
          },
        }),
        blockDelta(2, { type: 'text_delta', text: 'Sunny.' }),
        blockStop(2),
        messageDelta('end_turn'),
      ),
    );
    const { chunks } = translate(events);
    expect(text(chunks)).toBe('Sunny.');
    expect(chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])).toEqual([]);
    expect(chunks.at(-1)?.citations).toEqual([
      { title: 'Weather in New York City', url: 'https://weather.com/nyc' },
      { title: null, url: 'https://news.example.org/nyc' },
    ]);
  });

  it('streams the JSON-output tool as content and finishes with stop', () => {
    const events = sseEvents(
      sse(
        messageStart(),
        blockStart(0, { type: 'tool_use', id: 't', name: 'respond_with_json', input: {} }),
        blockDelta(0, { type: 'input_json_delta', partial_json: '{"answer":' }),
        blockDelta(0, { type: 'input_json_delta', partial_json: ' "yes"}' }),
        blockStop(0),
        messageDelta('tool_use'),
      ),
    );
    const { chunks } = translate(events);
    expect(text(chunks)).toBe('{"answer": "yes"}');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('takes cumulative usage from message_delta, including input fields when present', () => {
    const events = sseEvents(
      sse(
        messageStart({
          input_tokens: 10,
          output_tokens: 1,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: null,
        }),
        messageDelta('end_turn', {
          input_tokens: 12,
          output_tokens: 40,
          cache_read_input_tokens: null,
          cache_creation_input_tokens: 3,
        }),
      ),
    );
    expect(translate(events).usage).toEqual({
      inputTokens: 20,
      cachedInputTokens: 5,
      outputTokens: 40,
      reasoningTokens: 0,
    });
  });

  it('throws UpstreamStreamError with the documented status of an in-stream error event', () => {
    const failing = (type: string) => {
      const translator = chat.stream();
      translator.onEvent({ event: 'message_start', data: JSON.stringify(messageStart()[1]) });
      try {
        translator.onEvent({
          event: 'error',
          data: JSON.stringify({ type: 'error', error: { type, message: 'Overloaded' } }),
        });
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const overloaded = failing('overloaded_error');
    expect(overloaded).toBeInstanceOf(UpstreamStreamError);
    expect(overloaded).toMatchObject({ status: 529, message: 'Overloaded' });
    expect(failing('api_error')).toMatchObject({ status: 500 });
    expect(failing('rate_limit_error')).toMatchObject({ status: 429 });
    expect(failing('invalid_request_error')).toMatchObject({ status: 400 });
    expect(failing('brand_new_error')).toMatchObject({ status: 500 });
  });

  it('ignores pings and unknown events, and rejects undocumented ones', () => {
    const translator = chat.stream();
    expect(translator.onEvent({ event: 'ping', data: '{"type": "ping"}' })).toEqual([]);
    expect(translator.onEvent({ event: 'future_event', data: '{"type":"future_event","x":1}' })).toEqual([]);
    expect(translator.finish().usage).toBeUndefined();
    expect(() => translator.onEvent({ data: 'not json' })).toThrow(UpstreamProtocolError);
    expect(() => translator.onEvent({ data: '{"type":"content_block_delta","index":"zero"}' })).toThrow(
      UpstreamProtocolError,
    );
    expect(() =>
      translator.onEvent({ data: JSON.stringify(blockDelta(7, { type: 'text_delta', text: 'x' })[1]) }),
    ).toThrow(/before its start/);
  });
});
