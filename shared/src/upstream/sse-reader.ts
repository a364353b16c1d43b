import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../providers/chat-types.ts';

/** Largest event the gateway accepts from an upstream before it treats the stream as broken. */
const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * Turns an upstream body of server-sent events into events, as they arrive: one batch per network
 * read that completed any (so a relay can pass on what arrived together in one write). UTF-8
 * sequences split across network chunks are decoded correctly (streaming TextDecoder).
 */
export async function* readSseEventBatches(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<readonly SseEvent[]> {
  const decoder = new TextDecoder();
  let pending: SseEvent[] = [];
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
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.feed(decoder.decode());
  // A last event without its closing blank line still counts.
  parser.feed('\n\n');
  if (pending.length > 0) yield pending;
}
