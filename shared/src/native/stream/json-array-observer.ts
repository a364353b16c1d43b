/**
 * The elements of a JSON array streamed as bytes (Gemini's `streamGenerateContent` without
 * `alt=sse`: `[{...}\n,\r\n{...}\n]`), each handed over parsed as soon as its closing brace
 * arrives. Only the current element is kept (a private copy); strings are tracked so that braces
 * inside them do not count. Never throws: a malformed stream stops the observation (`problem`).
 */

const MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

/** Where the stream stands: before its array, between two elements, inside one, or after the array. */
export type ArrayPosition = 'before-array' | 'between' | 'in-element' | 'after-array';

export class JsonArrayObserver {
  readonly #onElement: (element: unknown) => void;
  #state: ArrayPosition = 'before-array';
  #elements = 0;
  #pieces: Uint8Array[] = [];
  #size = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #problem: string | undefined;

  constructor(onElement: (element: unknown) => void) {
    this.#onElement = onElement;
  }

  get problem(): string | undefined {
    return this.#problem;
  }

  push(chunk: Uint8Array): void {
    let from = 0;
    for (let i = 0; i < chunk.length && this.#problem === undefined; i += 1) {
      const byte = chunk[i] as number;
      if (this.#state === 'in-element') {
        if (this.#element(byte)) {
          this.#keep(chunk.subarray(from, i + 1));
          this.#emit();
        }
        continue;
      }
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
      if (this.#state === 'before-array' && byte === 0x5b) this.#state = 'between';
      else if (this.#state === 'between' && byte === 0x2c) continue;
      else if (this.#state === 'between' && byte === 0x5d) this.#state = 'after-array';
      else if (this.#state === 'between' && byte === 0x7b) {
        this.#state = 'in-element';
        this.#depth = 1;
        from = i;
      } else this.#problem = `unexpected byte 0x${byte.toString(16)} in a streamed JSON array`;
    }
    if (this.#state === 'in-element' && this.#problem === undefined) this.#keep(chunk.subarray(from));
  }

  /** Where the stream stands now (a stopped observation stays where it stopped). */
  get position(): ArrayPosition {
    return this.#state;
  }

  /** How many elements were closed so far. */
  get elements(): number {
    return this.#elements;
  }

  /** Whether the array was closed: the stream ended as the protocol ends it. */
  get closed(): boolean {
    return this.#state === 'after-array';
  }

  /** Tracks one byte of an element; true when it closes the element. */
  #element(byte: number): boolean {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === 0x5c) this.#escaped = true;
      else if (byte === 0x22) this.#inString = false;
      return false;
    }
    if (byte === 0x22) this.#inString = true;
    else if (byte === 0x7b || byte === 0x5b) this.#depth += 1;
    else if (byte === 0x7d || byte === 0x5d) this.#depth -= 1;
    return this.#depth === 0;
  }

  #keep(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (this.#size > MAX_ELEMENT_BYTES) {
      this.#problem = 'a streamed JSON array element is too large to observe';
      return;
    }
    // A copy: the relay may reuse or hand off the chunk it wrote.
    this.#pieces.push(piece.slice());
  }

  #emit(): void {
    const text = Buffer.concat(this.#pieces).toString('utf8');
    this.#pieces = [];
    this.#size = 0;
    this.#state = 'between';
    this.#elements += 1;
    try {
      this.#onElement(JSON.parse(text));
    } catch {
      this.#problem = 'a streamed JSON array element is not JSON';
    }
  }
}
