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
  | { kind: 'stall-mid-stream'; afterEvents: number }
  /**
   * Stream every event but the last `tailEvents` (those that end the stream: finish, usage), wait
   * `pauseMs`, then send them and end — for clients that leave after the last content.
   */
  | { kind: 'pause-before-end'; pauseMs: number; tailEvents: number };

/** The events sent before a `pause-before-end` pause, and the ones after it (all before, otherwise). */
export function splitBeforeEnd<T>(events: readonly T[], behaviour: FakeBehaviour): [T[], T[]] {
  if (behaviour.kind !== 'pause-before-end') return [[...events], []];
  const at = Math.max(0, events.length - behaviour.tailEvents);
  return [events.slice(0, at), events.slice(at)];
}

/** The pause of a `pause-before-end` behaviour (none for others). */
export function pauseBeforeEnd(behaviour: FakeBehaviour): Promise<void> {
  const ms = behaviour.kind === 'pause-before-end' ? behaviour.pauseMs : 0;
  return ms === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

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
