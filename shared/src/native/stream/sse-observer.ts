import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * The largest event the observer reassembles (characters). Responses' final event carries the
 * whole response, images included; past this the observer stops (the bytes still flow).
 */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/** A server-sent event as observed: its `event:` name if any, and its data. */
export interface ObservedEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * Server-sent events from raw bytes fed chunk by chunk: UTF-8 sequences and events split across
 * chunks are reassembled (streaming TextDecoder, eventsource-parser). Never throws: a framing
 * problem stops the observation and is kept in `problem`.
 */
export class SseObserver {
  readonly #decoder = new TextDecoder();
  readonly #parser;
  #problem: string | undefined;

  constructor(onEvent: (event: ObservedEvent) => void) {
    this.#parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (message: EventSourceMessage) => {
        if (this.#problem === undefined) onEvent({ event: message.event, data: message.data });
      },
      onError: (error) => {
        this.#problem ??= `unreadable event stream: ${error.message}`;
      },
    });
  }

  get problem(): string | undefined {
    return this.#problem;
  }

  /** Marks the observation as failed (e.g. an event whose data is not the JSON the protocol sends). */
  stop(problem: string): void {
    this.#problem ??= problem;
  }

  push(chunk: Uint8Array): void {
    if (this.#problem !== undefined) return;
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The body ended: a last event without its closing blank line still counts. */
  end(): void {
    if (this.#problem !== undefined) return;
    this.#parser.feed(`${this.#decoder.decode()}\n\n`);
  }
}
