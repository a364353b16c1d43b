/**
 * The duration of a WAV's samples as sent: every byte after the `data` chunk's header, at the byte
 * rate of its `fmt ` chunk, whatever the header's sizes say. The data size, the RIFF size and a
 * `fact` chunk are the file's own statements, and a file can state less than it holds (a data
 * size of 2 bytes before 30 s of samples); the bytes that came are what went upstream. Bytes of a
 * chunk after the samples (a trailing `LIST` tag) are counted as samples: a few milliseconds at
 * most, never less than what was sent.
 *
 * Only sample formats whose byte rate follows from the header are measured: PCM, IEEE float,
 * A-law and µ-law (also as WAVE_FORMAT_EXTENSIBLE), at `sampleRate` × `blockAlign` bytes a second
 * with `blockAlign` = channels × bytes a sample. A compressed WAV (ADPCM, MP3 in WAV…) has no such
 * rate: refused.
 */

/** `fmt ` tags of sample formats measured by byte rate (PCM, IEEE float, A-law, µ-law). */
const SAMPLE_FORMATS = new Set([0x0001, 0x0003, 0x0006, 0x0007]);
const EXTENSIBLE = 0xfffe;
/** A `fmt ` chunk larger than this is not a WAV format description. */
const MAX_FMT_BYTES = 1024;

interface WavFormat {
  readonly tag: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly blockAlign: number;
  readonly bitsPerSample: number;
}

/** What the walk needs next: bytes to read into a header, bytes to skip, or the samples. */
type Step =
  | { readonly kind: 'read'; readonly bytes: number; readonly next: (bytes: Uint8Array) => Step }
  | { kind: 'skip'; remaining: number }
  | { readonly kind: 'data' }
  | { readonly kind: 'refused'; readonly problem: string };

/** Walks a WAV's chunks as its bytes pass, keeping only the header being read. */
export class WavDataMeter {
  #step: Step = { kind: 'read', bytes: 12, next: (bytes) => this.#riff(bytes) };
  #pending: number[] = [];
  #format: WavFormat | undefined;
  #dataBytes = 0;

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      const step = this.#step;
      if (step.kind === 'refused') return;
      if (step.kind === 'data') {
        this.#dataBytes += chunk.length - at;
        return;
      }
      if (step.kind === 'skip') {
        const take = Math.min(step.remaining, chunk.length - at);
        step.remaining -= take;
        at += take;
        if (step.remaining === 0) this.#step = this.#chunkHeader();
        continue;
      }
      const take = Math.min(step.bytes - this.#pending.length, chunk.length - at);
      for (let k = 0; k < take; k += 1) this.#pending.push(chunk[at + k] as number);
      at += take;
      if (this.#pending.length === step.bytes) {
        const bytes = Uint8Array.from(this.#pending);
        this.#pending = [];
        this.#step = step.next(bytes);
      }
    }
  }

  /** The seconds of the samples seen, or why the file cannot be measured. */
  result(): { readonly seconds: number } | { readonly problem: string } {
    const step = this.#step;
    if (step.kind === 'refused') return { problem: step.problem };
    if (step.kind !== 'data' || this.#format === undefined)
      return { problem: 'The WAV file has no audio data.' };
    const { sampleRate, blockAlign } = this.#format;
    return { seconds: this.#dataBytes / (sampleRate * blockAlign) };
  }

  #riff(bytes: Uint8Array): Step {
    if (ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE')
      return { kind: 'refused', problem: 'The file is not a RIFF/WAVE file.' };
    return this.#chunkHeader();
  }

  #chunkHeader(): Step {
    return { kind: 'read', bytes: 8, next: (bytes) => this.#chunk(ascii(bytes, 0), uint32(bytes, 4)) };
  }

  #chunk(id: string, size: number): Step {
    const padded = size + (size % 2);
    if (id === 'data') {
      if (this.#format === undefined)
        return { kind: 'refused', problem: 'The WAV file has no format chunk before its data.' };
      return { kind: 'data' };
    }
    if (id !== 'fmt ') return padded === 0 ? this.#chunkHeader() : { kind: 'skip', remaining: padded };
    if (size < 16 || size > MAX_FMT_BYTES)
      return { kind: 'refused', problem: 'The WAV file has an invalid format chunk.' };
    return { kind: 'read', bytes: padded, next: (bytes) => this.#fmt(bytes) };
  }

  #fmt(bytes: Uint8Array): Step {
    const format: WavFormat = {
      tag: uint16(bytes, 0),
      channels: uint16(bytes, 2),
      sampleRate: uint32(bytes, 4),
      blockAlign: uint16(bytes, 12),
      bitsPerSample: uint16(bytes, 14),
    };
    // WAVE_FORMAT_EXTENSIBLE names its sample format in the first two bytes of its subformat GUID.
    const tag = format.tag === EXTENSIBLE && bytes.length >= 26 ? uint16(bytes, 24) : format.tag;
    if (!SAMPLE_FORMATS.has(tag)) {
      return {
        kind: 'refused',
        problem: `The WAV file's samples are compressed (format ${tag}), so its duration cannot be measured from its bytes; send PCM WAV or another format.`,
      };
    }
    const bytesPerSample = Math.ceil(format.bitsPerSample / 8);
    const consistent = format.blockAlign > 0 && format.blockAlign === format.channels * bytesPerSample;
    if (!consistent || format.sampleRate === 0)
      return { kind: 'refused', problem: 'The WAV file has an invalid format chunk.' };
    this.#format = format;
    return this.#chunkHeader();
  }
}

function ascii(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}

function uint16(bytes: Uint8Array, at: number): number {
  return (bytes[at] as number) | ((bytes[at + 1] as number) << 8);
}

function uint32(bytes: Uint8Array, at: number): number {
  return (uint16(bytes, at) + uint16(bytes, at + 2) * 0x10000) >>> 0;
}
