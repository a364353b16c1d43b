/**
 * How a fake provider answers its next requests, so tests can make it fail the ways real upstreams
 * fail. Every fake upstream (OpenAI-compatible, Anthropic, Gemini, …) honours the same script.
 */
export type FakeBehaviour =
  /** Answer normally (the provider's documented success body or event sequence). */
  | { kind: 'ok' }
  /** Answer with this HTTP status and the provider's documented error body for it. */
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  /** Wait before answering (before the status line), then answer normally. */
  | { kind: 'slow'; delayMs: number }
  /** Stream normally for `afterEvents` events, then the provider's in-stream error event (or a cut connection). */
  | { kind: 'fail-mid-stream'; afterEvents: number; mode: 'error-event' | 'disconnect' }
  /** Stream `afterEvents` events, then stall (never finish) — for client-abort tests. */
  | { kind: 'stall-mid-stream'; afterEvents: number };

/** A queue of behaviours: each request takes the next one; when it is empty, requests answer `ok`. */
export class BehaviourScript {
  readonly #queue: FakeBehaviour[] = [];

  /** Makes the next `times` requests behave like this (default once). */
  next(behaviour: FakeBehaviour, times = 1): this {
    for (let i = 0; i < times; i += 1) this.#queue.push(behaviour);
    return this;
  }

  /** Makes every request behave like this until `reset`. */
  always(behaviour: FakeBehaviour): this {
    this.#queue.length = 0;
    this.#always = behaviour;
    return this;
  }

  reset(): void {
    this.#queue.length = 0;
    this.#always = undefined;
  }

  take(): FakeBehaviour {
    return this.#queue.shift() ?? this.#always ?? { kind: 'ok' };
  }

  #always: FakeBehaviour | undefined;
}
