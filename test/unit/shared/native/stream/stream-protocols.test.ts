/**
 * What the native relay learns from each protocol besides the usage: the text a stream produced
 * (for the charge of a stream cut after its client left) and the error that ends it in the
 * provider's own format (the api stopping); and what such a cut stream is charged.
 */
import { describe, expect, it } from 'vitest';
import { tokenUsage } from '../../../../../shared/src/native/native-usage.ts';
import { cutStreamUsage } from '../../../../../shared/src/native/stream/cut-usage.ts';
import {
  audioProtocol,
  type StreamProtocol,
} from '../../../../../shared/src/native/stream/stream-protocol.ts';
import {
  anthropicProtocol,
  chatCompletionsProtocol,
  geminiProtocol,
  responsesProtocol,
} from '../../../../../shared/src/native/stream/text-protocols.ts';
import { chunkings, utf8 } from '../chunking.ts';

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : new TextDecoder().decode(bytes);
const sse = (data: unknown, event?: string) =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;

/** Feeds `stream` to a fresh protocol in every chunking; returns the characters counted each time. */
function producedBy(make: () => StreamProtocol, stream: string): number[] {
  return chunkings(utf8(stream)).map((chunks) => {
    const protocol = make();
    for (const chunk of chunks) protocol.push(chunk);
    return protocol.producedCharacters() ?? -1;
  });
}

/** The `data:` payload of one SSE event, parsed. */
function dataOf(event: string | undefined): unknown {
  const line = event?.split('\n').find((l) => l.startsWith('data: '));
  return line === undefined ? undefined : JSON.parse(line.slice(6));
}

describe('anthropicProtocol', () => {
  it('counts the text, thinking and tool input of content_block_delta events only', () => {
    const stream =
      sse({ type: 'message_start', message: { content: [], usage: { input_tokens: 9 } } }, 'message_start') +
      sse(
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm, ' } },
        'content_block_delta',
      ) +
      sse(
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Waves 😀' } },
        'content_block_delta',
      ) +
      sse(
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        'content_block_delta',
      ) +
      sse({ type: 'message_delta', usage: { output_tokens: 5 } }, 'message_delta');
    const expected = 'Hm, '.length + 'Waves 😀'.length + '{"a":'.length;
    expect(new Set(producedBy(anthropicProtocol, stream))).toEqual(new Set([expected]));
  });

  it('ends a stream with an error event its SDKs retry (overloaded_error)', () => {
    const end = text(anthropicProtocol().errorEnd('restarting'));
    expect(end?.startsWith('event: error\n')).toBe(true);
    expect(dataOf(end)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'restarting' },
    });
  });
});

describe('chatCompletionsProtocol', () => {
  it('counts content, reasoning, refusals and tool arguments; [DONE] and the usage chunk count nothing', () => {
    const chunk = (delta: Record<string, unknown>) => sse({ choices: [{ index: 0, delta }] });
    const stream =
      chunk({ role: 'assistant', content: '' }) +
      chunk({ reasoning_content: 'think' }) +
      chunk({ content: 'Waves.' }) +
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"x":1}' } }] }) +
      sse({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }) +
      'data: [DONE]\n\n';
    expect(new Set(producedBy(chatCompletionsProtocol, stream))).toEqual(new Set([5 + 6 + 7]));
  });

  it('ends a stream with a data: {"error": …} event', () => {
    expect(dataOf(text(chatCompletionsProtocol().errorEnd('restarting')))).toEqual({
      error: { message: 'restarting', type: 'server_error', param: null, code: null },
    });
  });
});

describe('responsesProtocol', () => {
  it('counts every *.delta event, and numbers its error after the last event seen', () => {
    const protocol = responsesProtocol();
    const stream =
      sse({ type: 'response.created', sequence_number: 0 }, 'response.created') +
      sse(
        { type: 'response.output_text.delta', delta: 'Wa', sequence_number: 1 },
        'response.output_text.delta',
      ) +
      sse({ type: 'response.function_call_arguments.delta', delta: '{}', sequence_number: 2 }, 'x') +
      sse({ type: 'response.output_text.done', text: 'Wa', sequence_number: 3 }, 'response.output_text.done');
    protocol.push(utf8(stream));
    expect(protocol.producedCharacters()).toBe(4);
    const end = text(protocol.errorEnd('restarting'));
    expect(end?.startsWith('event: error\n')).toBe(true);
    expect(dataOf(end)).toEqual({
      type: 'error',
      code: 'server_error',
      message: 'restarting',
      param: null,
      sequence_number: 4,
    });
  });
});

describe('geminiProtocol', () => {
  const chunk = (t: string) => ({ candidates: [{ content: { role: 'model', parts: [{ text: t }] } }] });
  const UNAVAILABLE = { error: { code: 503, message: 'restarting', status: 'UNAVAILABLE' } };

  it('with alt=sse: counts the candidates’ text parts; ends with an error event', () => {
    const stream = sse(chunk('Wa')) + sse(chunk('ves.'));
    expect(new Set(producedBy(() => geminiProtocol(true), stream))).toEqual(new Set([6]));
    expect(dataOf(text(geminiProtocol(true).errorEnd('restarting')))).toEqual(UNAVAILABLE);
  });

  it('as a JSON array: counts the elements’ text; the error closes the array, where that can be done', () => {
    const whole = `[${JSON.stringify(chunk('Wa'))}\n,\r\n${JSON.stringify(chunk('ves.'))}`;
    expect(new Set(producedBy(() => geminiProtocol(false), whole))).toEqual(new Set([6]));

    const fresh = geminiProtocol(false);
    expect(JSON.parse(text(fresh.errorEnd('restarting')) ?? '')).toEqual([UNAVAILABLE]);

    const between = geminiProtocol(false);
    between.push(utf8(whole));
    expect(JSON.parse(`${whole}${text(between.errorEnd('restarting'))}`)).toEqual([
      chunk('Wa'),
      chunk('ves.'),
      UNAVAILABLE,
    ]);

    const inside = geminiProtocol(false);
    inside.push(utf8('[{"candidates":'));
    expect(inside.errorEnd('restarting')).toBeUndefined();
  });
});

describe('audioProtocol', () => {
  it('counts no text and has no in-band error', () => {
    const audio = audioProtocol();
    audio.push(new Uint8Array([0xff, 0xfb]));
    expect(audio.producedCharacters()).toBeUndefined();
    expect(audio.errorEnd('restarting')).toBeUndefined();
  });
});

describe('cutStreamUsage', () => {
  const cut = { producedCharacters: 21, requestBytes: 400, contextWindow: 1_000 };

  it('keeps the input the upstream reported; output at least a token per 4 characters produced', () => {
    const reported = tokenUsage({ inputTokens: 12, cacheReadTokens: 3, outputTokens: 1 });
    expect(cutStreamUsage(reported, cut)).toEqual({ ...reported, outputTokens: 6 });
    const ahead = tokenUsage({ inputTokens: 12, outputTokens: 40 });
    expect(cutStreamUsage(ahead, cut)).toEqual(ahead);
  });

  it('estimates the input from the request body when none was reported, within the context window', () => {
    expect(cutStreamUsage(undefined, cut)).toEqual(tokenUsage({ inputTokens: 100, outputTokens: 6 }));
    expect(cutStreamUsage(undefined, { ...cut, contextWindow: 50 })).toEqual(
      tokenUsage({ inputTokens: 50, outputTokens: 6 }),
    );
  });

  it('leaves an audio stream’s usage as its request or its audio fixed it', () => {
    const speech = { kind: 'characters', characters: 120 } as const;
    expect(cutStreamUsage(speech, { ...cut, producedCharacters: undefined })).toEqual(speech);
    expect(cutStreamUsage(undefined, { ...cut, producedCharacters: undefined })).toBeUndefined();
  });
});
