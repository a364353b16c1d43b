import type { FastifyBaseLogger } from 'fastify';

/** How refusals are summed before they are summarised, and how many of one class make a line. */
export interface BulkRefusalSettings {
  readonly windowMs: number;
  readonly threshold: number;
}

/**
 * Ten seconds, ten refusals: a one-off refusal (a wallet that ran dry, a mistyped key) is ordinary
 * and logged at `info` with its request; ten of one class within ten seconds is a pattern an
 * operator running at `warn` must see.
 */
export const BULK_REFUSALS: BulkRefusalSettings = { windowMs: 10_000, threshold: 10 };

/** An answered error, as far as its class goes. */
export interface AnsweredError {
  readonly status: number;
  readonly code: string | number;
  readonly message: string;
}

/**
 * Whether an answer is a refusal the service makes of itself, summarised when it comes in bulk:
 * every 5xx (a store outage, a restart, no healthy upstream, a bug) and the admission refusals a
 * fault of the service could give every caller at once (401 key, 402 wallet, 403 limits). Left
 * out: the spec's per-key 429 (a key over its own limit is the limit working) and the answers to
 * what a request asks (400, 404, 413, 422...).
 */
export function isServiceRefusal(error: AnsweredError): boolean {
  if (error.status >= 500) return true;
  return error.status === 401 || error.status === 402 || error.status === 403;
}

interface RefusalClass {
  count: number;
  readonly status: number;
  readonly code: string | number;
  /** The first message of the window: the classes share codes (three kinds of 503 say `upstream_error`). */
  readonly example: string;
}

/**
 * Counts the service's own refusals by class (status and code) and writes one `warn` line per
 * class whose count reached the threshold within a window, with the count: a service refusing
 * whole rounds of requests shows in the log at `LOG_LEVEL=warn`, in a few lines whatever the rate.
 */
export class BulkRefusals {
  readonly #logger: FastifyBaseLogger;
  readonly #settings: BulkRefusalSettings;
  readonly #classes = new Map<string, RefusalClass>();
  #timer: NodeJS.Timeout | undefined;

  constructor(logger: FastifyBaseLogger, settings: BulkRefusalSettings = BULK_REFUSALS) {
    this.#logger = logger;
    this.#settings = settings;
  }

  /** Counts `error` when it is one of the service's own refusals (`isServiceRefusal`). */
  note(error: AnsweredError): void {
    if (!isServiceRefusal(error)) return;
    const name = `${error.status} ${error.code}`;
    const known = this.#classes.get(name);
    if (known !== undefined) known.count += 1;
    else
      this.#classes.set(name, { count: 1, status: error.status, code: error.code, example: error.message });
    // The window starts with its first refusal; an idle service runs no timer.
    this.#timer ??= setTimeout(() => this.flush(), this.#settings.windowMs).unref();
  }

  /** Ends the window: one line per class at or above the threshold, then counts from zero. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const seconds = this.#settings.windowMs / 1000;
    for (const { count, status, code, example } of this.#classes.values()) {
      if (count < this.#settings.threshold) continue;
      this.#logger.warn(
        { status, code, count, seconds, example },
        `refused ${count} requests within ${seconds} s with ${status} ${code}`,
      );
    }
    this.#classes.clear();
  }
}
