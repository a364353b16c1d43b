import { type Dispatcher, errors as undiciErrors } from 'undici';

/** Bytes a body holds unread before it asks the connection to stop reading (undici's default). */
const HIGH_WATER_BYTES = 64 * 1024;
/** The most `dump` reads before it gives the connection up rather than read on. */
const DUMP_LIMIT_BYTES = 128 * 1024;

/**
 * An upstream answer's body as undici's dispatcher delivers it: chunks queue here until the one
 * reader takes them, all that waits at once (async iteration, or `text`/`json`/`arrayBuffer`/`dump`,
 * which read it whole). The connection is paused while more than 64 KB wait unread and resumed when
 * the reader takes them; a reader that stops early (a client gone mid-stream) aborts the call, so
 * the connection is not reused half read. It does what undici's `request()` body does for the
 * gateway's readers, without a Node stream (and its state, listeners and async context) for every
 * upstream call.
 */
export class UpstreamBody implements AsyncIterable<Uint8Array> {
  readonly #controller: Dispatcher.DispatchController;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;
  #used = false;

  constructor(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
  }

  /** A chunk arrived (the dispatcher's side). */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    if (this.#buffered > HIGH_WATER_BYTES) this.#controller.pause();
    this.#notify();
  }

  /** The body is complete (the dispatcher's side). */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The body broke off: the reader gets `error` after the chunks that came before it. */
  fail(error: Error): void {
    this.#error ??= error;
    this.#ended = true;
    this.#notify();
  }

  [Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    return this.#reads(joined);
  }

  async text(): Promise<string> {
    return (await this.#whole()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const whole = await this.#whole();
    return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
  }

  /** Reads and drops the rest (up to 128 KB; a longer rest aborts the call instead). */
  async dump(): Promise<void> {
    let read = 0;
    for await (const chunk of this) {
      read += chunk.byteLength;
      if (read > DUMP_LIMIT_BYTES) return;
    }
  }

  /** The whole body: every chunk kept as it came, copied once at the end (none for a single chunk). */
  async #whole(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const taken of this.#reads(apart)) for (const chunk of taken) chunks.push(chunk);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }

  /**
   * The body read to its end, one step per take (`shape` turns what was taken into what the reader
   * gets). A reader that stops before the end aborts the call.
   */
  async *#reads<T>(shape: (chunks: Buffer[]) => T): AsyncGenerator<T> {
    if (this.#used) throw new TypeError('the upstream body was already read');
    this.#used = true;
    let complete = false;
    try {
      for (;;) {
        const chunks = this.#take();
        if (chunks !== undefined) {
          yield shape(chunks);
          continue;
        }
        if (this.#error !== undefined) throw this.#error;
        if (this.#ended) {
          complete = true;
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      if (!complete && !this.#ended) this.#controller.abort(new undiciErrors.RequestAbortedError());
    }
  }

  /**
   * Everything that arrived since the last take: what one network read brought (an upstream's
   * chunked body delivers each of its HTTP chunks apart, a stream's events often one a chunk)
   * reaches the reader at once, so a relay passes it on in one step instead of one per chunk.
   */
  #take(): Buffer[] | undefined {
    const chunks = this.#chunks;
    if (chunks.length === 0) return undefined;
    this.#chunks = [];
    this.#buffered = 0;
    if (this.#controller.paused) this.#controller.resume();
    return chunks;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** What an iterating reader gets of a take: one chunk (the chunks joined when there are several). */
function joined(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** What `#whole` keeps of a take: the chunks as they came, joined once at the end. */
function apart(chunks: Buffer[]): Buffer[] {
  return chunks;
}
