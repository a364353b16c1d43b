import { describe, expect, it } from 'vitest';
import { JsonArrayObserver } from '../../../../../shared/src/native/stream/json-array-observer.ts';
import { SseObserver } from '../../../../../shared/src/native/stream/sse-observer.ts';
import {
  observed,
  type UsageAccumulator,
} from '../../../../../shared/src/native/stream/usage-accumulator.ts';
import { chunkings, utf8 } from '../chunking.ts';

describe('JsonArrayObserver', () => {
  it('hands over each element once, braces and escaped quotes inside strings notwithstanding', () => {
    const array = '[{"t":"a}b{\\"c\\"]","n":[1,{"x":2}]} ,\r\n {"t":"é😀\\\\"}\n]';
    for (const chunks of chunkings(utf8(array))) {
      const seen: unknown[] = [];
      const observer = new JsonArrayObserver((element) => seen.push(element));
      for (const chunk of chunks) observer.push(chunk);
      expect(seen).toEqual([{ t: 'a}b{"c"]', n: [1, { x: 2 }] }, { t: 'é😀\\' }]);
      expect(observer.closed).toBe(true);
      expect(observer.problem).toBeUndefined();
    }
  });

  it('keeps a private copy: a chunk reused by the relay after push does not corrupt the element', () => {
    const seen: unknown[] = [];
    const observer = new JsonArrayObserver((element) => seen.push(element));
    const chunk = utf8('[{"a":"xy');
    observer.push(chunk);
    chunk.fill(0x20);
    observer.push(utf8('z"}]'));
    expect(seen).toEqual([{ a: 'xyz' }]);
  });
});

describe('SseObserver', () => {
  it('reassembles events split inside multi-byte characters and across CRLF line ends', () => {
    const stream = 'event: a\r\ndata: {"t":"😀"}\r\n\r\n: comment\r\ndata: line1\r\ndata: line2\r\n\r\n';
    for (const chunks of chunkings(utf8(stream))) {
      const events: unknown[] = [];
      const observer = new SseObserver((event) => events.push(event));
      for (const chunk of chunks) observer.push(chunk);
      observer.end();
      expect(events).toEqual([
        { event: 'a', data: '{"t":"😀"}' },
        { event: undefined, data: 'line1\nline2' },
      ]);
    }
  });

  it('counts a last event without its blank line', () => {
    const events: unknown[] = [];
    const observer = new SseObserver((event) => events.push(event));
    observer.push(utf8('data: last'));
    expect(events).toEqual([]);
    observer.end();
    expect(events).toEqual([{ event: undefined, data: 'last' }]);
  });
});

describe('observed', () => {
  it('passes each chunk on as soon as it arrives, before the next is read', async () => {
    const log: string[] = [];
    const accumulator: UsageAccumulator = {
      push: (chunk) => log.push(`observe ${chunk.length}`),
      finish: () => ({ usage: undefined, complete: false, problem: undefined }),
    };
    async function* upstream() {
      log.push('read 1');
      yield utf8('a');
      log.push('read 2');
      yield utf8('bb');
    }
    for await (const chunk of observed(upstream(), accumulator)) log.push(`relay ${chunk.length}`);
    expect(log).toEqual(['read 1', 'observe 1', 'relay 1', 'read 2', 'observe 2', 'relay 2']);
  });
});
