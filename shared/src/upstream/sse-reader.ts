import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../providers/chat-types.ts';

/** Largest event the gateway accepts from an upstream before it treats the stream as broken. */
const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * Turns an upstream body of server-sent events into events, as they arrive. UTF-8 sequences split
 * across network chunks are decoded correctly (streaming TextDecoder).
 */
export async function* readSseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const pending: SseEvent[] = [];
  let parseError: Error | undefined;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_BYTES,
    onEvent: (message) => {
      pending.push(
        message.event === undefined ? { data: message.data } : { event: message.event, data: message.data },
      );
    },
    onError: (error) => {
      parseError = error;
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (parseError !== undefined) throw parseError;
    while (pending.length > 0) yield pending.shift() as SseEvent;
  }
  parser.feed(decoder.decode());
  // A last event without its closing blank line still counts.
  parser.feed('\n\n');
  while (pending.length > 0) yield pending.shift() as SseEvent;
}
