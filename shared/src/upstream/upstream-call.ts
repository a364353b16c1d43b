import { type Dispatcher, errors as undiciErrors } from 'undici';
import { UpstreamBody } from './upstream-body.ts';

/** An upstream answer whose status and headers arrived; its body is still arriving. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: UpstreamBody;
}

/**
 * Sends one request through the dispatcher and resolves once its status and headers arrived (any
 * status; 1xx informational answers are skipped), or rejects with undici's error when none came:
 * connect and headers timeouts, a broken connection, or `signal` (its reason, else undici's
 * `RequestAbortedError`). An abort after the headers breaks the body off with that reason.
 */
export function callUpstream(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: AbortSignal,
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new AnswerHandler(resolve, reject, signal);
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      handler.onResponseError(undefined, err as Error);
    }
  });
}

class AnswerHandler implements Dispatcher.DispatchHandler {
  readonly #resolve: (answer: UpstreamAnswer) => void;
  readonly #reject: (error: Error) => void;
  readonly #signal: AbortSignal | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #body: UpstreamBody | undefined;
  #settled = false;
  /** Why the call was aborted before it started (the controller comes with the start). */
  #abortedWith: Error | undefined;

  constructor(
    resolve: (answer: UpstreamAnswer) => void,
    reject: (error: Error) => void,
    signal: AbortSignal | undefined,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    if (signal === undefined) return;
    if (signal.aborted) this.#abortedWith = abortReason(signal);
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortedWith !== undefined) controller.abort(this.#abortedWith);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (status < 200) return;
    this.#body = new UpstreamBody(controller);
    this.#settled = true;
    this.#resolve({ status, headers, body: this.#body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#body?.push(chunk);
  }

  onResponseEnd(): void {
    this.#done();
    this.#body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#done();
    if (this.#body !== undefined) this.#body.fail(error);
    else if (!this.#settled) {
      this.#settled = true;
      this.#reject(error);
    }
  }

  readonly #onAbort = (): void => {
    const reason = abortReason(this.#signal as AbortSignal);
    if (this.#controller === undefined) this.#abortedWith = reason;
    else this.#controller.abort(reason);
  };

  #done(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError();
}
