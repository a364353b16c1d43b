/** Observes audio bytes chunk by chunk; `seconds()` is the duration of what it saw. */
export interface AudioDurationMeter {
  push(chunk: Uint8Array): void;
  seconds(): number;
}

/** Audio of constant bytes per second (PCM, G.711): the duration of every byte seen. */
export class ByteRateMeter implements AudioDurationMeter {
  #bytes = 0;
  readonly #bytesPerSecond: number;

  constructor(bytesPerSecond: number) {
    this.#bytesPerSecond = bytesPerSecond;
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.length;
  }

  seconds(): number {
    return this.#bytes / this.#bytesPerSecond;
  }
}
