/** Why a stream's upstream call was cut before its end, if it was. */
export type StreamCut = 'client-gone' | 'drain-over' | 'stopping';

export interface StreamCallOptions {
  /** Aborted when the answer is no longer wanted: the client left, or the api stops (`answerSignal`). */
  readonly answer: AbortSignal;
  /** Aborted when the api stops. */
  readonly stopping: AbortSignal;
  /** How long a call whose client left after output may still be read (`STREAM_DRAIN_MS`). */
  readonly drainMs: number;
}

/**
 * The signal of a streamed answer's upstream call, and why it was cut (docs/chat.md, "A client
 * that leaves"):
 *
 * - before any output reached the client, a client that leaves aborts the call at once
 *   (`client-gone`): nothing was produced for it, nothing more is charged than the upstream said;
 * - once output was relayed, a client that leaves lets the call run `drainMs` more, so that the
 *   relay reads it to the usage it reports at its end (`draining`); then it is aborted (`drain-over`);
 * - the api stopping aborts it at once, whatever came before (`stopping`).
 */
export class StreamCallSignal {
  readonly #controller = new AbortController();
  readonly #stopping: AbortSignal;
  readonly #answer: AbortSignal;
  readonly #drainMs: number;
  #output = false;
  #draining = false;
  #cut: StreamCut | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: StreamCallOptions) {
    this.#answer = options.answer;
    this.#stopping = options.stopping;
    this.#drainMs = options.drainMs;
    if (this.#stopping.aborted) this.#abort('stopping');
    else if (this.#answer.aborted) this.clientLeft();
    // The api's stop reaches a call through `answer` (answerSignal follows it); only a drain, which
    // outlives `answer`, listens to the stop itself, and only while it lasts: no listener per
    // request stays on the process-wide signal.
    this.#answer.addEventListener('abort', this.#onAnswerAborted, { once: true });
  }

  /** The signal to call the upstream with. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the call was cut; undefined while it runs (or ran to its end). */
  get cut(): StreamCut | undefined {
    return this.#cut;
  }

  /** Whether the client left after output: the relay reads on, for the usage, until the call ends. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Whether output reached the client. */
  get outputSent(): boolean {
    return this.#output;
  }

  /** Output reached the client: from now a client that leaves lets the call drain. */
  outputRelayed(): void {
    this.#output = true;
  }

  /** The client left (its connection closed, or the relay was closed): idempotent. */
  clientLeft(): void {
    if (this.#cut !== undefined || this.#draining) return;
    if (this.#stopping.aborted || !this.#output) {
      this.#abort(this.#stopping.aborted ? 'stopping' : 'client-gone');
      return;
    }
    this.#draining = true;
    this.#stopping.addEventListener('abort', this.#onStopping, { once: true });
    this.#timer = setTimeout(() => this.#abort('drain-over'), this.#drainMs);
    this.#timer.unref();
  }

  /** The stream ended: its timer and listeners go. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#answer.removeEventListener('abort', this.#onAnswerAborted);
    this.#stopping.removeEventListener('abort', this.#onStopping);
  }

  readonly #onAnswerAborted = (): void => {
    if (this.#stopping.aborted) this.#abort('stopping');
    else this.clientLeft();
  };

  readonly #onStopping = (): void => this.#abort('stopping');

  #abort(cut: StreamCut): void {
    if (this.#cut !== undefined) return;
    this.#cut = cut;
    clearTimeout(this.#timer);
    this.#stopping.removeEventListener('abort', this.#onStopping);
    const message = cut === 'stopping' ? 'The service is stopping.' : 'The client went away.';
    this.#controller.abort(new DOMException(message, 'AbortError'));
  }
}
