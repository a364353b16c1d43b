import { describe, expect, it } from 'vitest';
import { readSseEventBatches } from '../../../../shared/src/upstream/sse-reader.ts';

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function collect(source: AsyncIterable<Uint8Array>) {
  const events = [];
  for await (const batch of readSseEventBatches(source)) events.push(...batch);
  return events;
}

describe('readSseEventBatches', () => {
  it('yields the events completed by one network read together, and no empty batch', async () => {
    const batches = [];
    const source = chunks('data: 1\n\ndata: 2\n\ndata: 3', '\n\n', ': ping\n\n', 'data: 4\n\n');
    for await (const batch of readSseEventBatches(source)) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([['1', '2'], ['3'], ['4']]);
  });

  it('reads data-only and named events across arbitrary chunk boundaries', async () => {
    const events = await collect(
      chunks(
        'data: {"a":1}\n\nev',
        'ent: message_start\ndata: {"b"',
        ':2}\n\n: ping comment\n\ndata: [DONE]\n\n',
      ),
    );
    expect(events).toEqual([
      { data: '{"a":1}' },
      { event: 'message_start', data: '{"b":2}' },
      { data: '[DONE]' },
    ]);
  });

  it('decodes a multi-byte character split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"t":"سلام"}\n\n');
    const events = await collect(chunks(bytes.slice(0, 13), bytes.slice(13)));
    expect(events).toEqual([{ data: '{"t":"سلام"}' }]);
  });

  it('handles CRLF line endings and a last event without its blank line', async () => {
    expect(await collect(chunks('data: one\r\n\r\ndata: two'))).toEqual([{ data: 'one' }, { data: 'two' }]);
  });

  it('joins multi-line data with newlines', async () => {
    expect(await collect(chunks('data: a\ndata: b\n\n'))).toEqual([{ data: 'a\nb' }]);
  });
});
