/**
 * Walks audio frames that each begin with a sync byte (0xFF) and state their own length (MPEG
 * audio, AAC in ADTS) across chunks, holding no more than a header: a frame's body is skipped by
 * its length; bytes that do not start a valid header are skipped to the next sync byte, as a
 * decoder resynchronises; only complete frames are reported.
 */

/** A decoded frame header: the frame's length in bytes, header included. */
export interface SyncFrame {
  readonly length: number;
}

export interface SyncFrameFormat<F extends SyncFrame> {
  /** Bytes of a header. */
  readonly headerBytes: number;
  /** The frame a header starts, or undefined when the bytes are not one. */
  parse(head: readonly number[]): F | undefined;
  /** A complete frame; `start` holds the first frame's first `inspectBytes` bytes (none for the rest). */
  onFrame(frame: F, start: Uint8Array | undefined): void;
  /** Bytes of the first frame handed to `onFrame` (to tell a metadata frame apart); 0 by default. */
  readonly inspectBytes?: number;
}

export class SyncFrameWalker<F extends SyncFrame> {
  readonly #format: SyncFrameFormat<F>;
  #head: number[] = [];
  /** Bytes of the current frame's body still to pass. */
  #skip = 0;
  #current: F | undefined;
  /** The first frame's start, collected until `inspectBytes` are in (undefined once reported). */
  #start: number[] | undefined = [];

  constructor(format: SyncFrameFormat<F>) {
    this.#format = format;
  }

  /** Passes `bytes` before the next header is looked for (a tag the caller recognised). */
  skip(bytes: number): void {
    this.#skip += bytes;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, chunk.length - i);
        if (this.#current !== undefined) this.#collect(chunk.subarray(i, i + step));
        this.#skip -= step;
        i += step;
        if (this.#skip === 0) this.#endFrame();
        continue;
      }
      if (this.#head.length === 0) {
        // Between frames only a sync byte can start one: jump to the next (a native search).
        const sync = chunk.indexOf(0xff, i);
        if (sync < 0) return;
        i = sync;
      }
      this.#head.push(chunk[i] as number);
      i += 1;
      if (this.#head.length === this.#format.headerBytes) this.#onHeader();
    }
  }

  #onHeader(): void {
    const head = this.#head;
    const frame = this.#format.parse(head);
    if (frame === undefined) {
      // Drop the first byte and every byte before the next sync byte in the header.
      const next = head.indexOf(0xff, 1);
      head.splice(0, next < 0 ? head.length : next);
      return;
    }
    this.#head = [];
    this.#current = frame;
    this.#collect(Uint8Array.from(head));
    this.#skip = frame.length - head.length;
    if (this.#skip <= 0) this.#endFrame();
  }

  #collect(bytes: Uint8Array): void {
    const start = this.#start;
    const wanted = this.#format.inspectBytes ?? 0;
    if (start === undefined || start.length >= wanted) return;
    for (const byte of bytes.subarray(0, wanted - start.length)) start.push(byte);
  }

  #endFrame(): void {
    const frame = this.#current;
    this.#current = undefined;
    if (frame === undefined) return;
    const start = this.#start;
    this.#start = undefined;
    this.#format.onFrame(frame, start === undefined ? undefined : Uint8Array.from(start));
  }
}
