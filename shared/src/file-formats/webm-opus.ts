/**
 * Opus in WebM (Matroska): the duration of the packets a decoder plays, walked from the EBML
 * elements as they pass, never the segment's `Duration` (a file's own statement, and absent from
 * what browsers' MediaRecorder writes) nor the blocks' timecodes. Tracks whose `CodecID` is
 * `A_OPUS` are measured: each frame of each `SimpleBlock` or `Block` (laced or not) counts the
 * duration its first byte (its TOC, RFC 6716 section 3.1) gives; tracks played side by side count
 * as the longest. Containers (`Segment`, `Cluster`, `BlockGroup`, `Tracks`, `TrackEntry`) are
 * walked into, whatever size they state (a recorder writes "unknown"); other elements are skipped
 * by their size. A malformed element ends the walk: what came before it is counted.
 */
import type { AudioDurationMeter } from './audio-duration-meter.ts';
import { opusPacketSamples } from './ogg-opus.ts';

const CONTAINERS = new Set([0x18538067, 0x1f43b675, 0xa0, 0x1654ae6b, 0xae]);
const TRACK_ENTRY = 0xae;
const TRACK_NUMBER = 0xd7;
const CODEC_ID = 0x86;
const BLOCKS = new Set([0xa3, 0xa1]); // SimpleBlock, Block
/** A block or value larger than this is skipped unread (an audio block is a few kilobytes). */
const MAX_READ_BYTES = 1 << 20;
const OPUS_RATE = 48_000;

/** The element being read: its id and the parts of its body so far. */
interface Reading {
  readonly id: number;
  readonly parts: Uint8Array[];
  remaining: number;
}

/** Walks WebM elements across chunks; `seconds()` is the duration of the Opus frames seen. */
export class WebmOpusMeter implements AudioDurationMeter {
  #head: number[] = [];
  #skip = 0;
  #reading: Reading | undefined;
  #stopped = false;
  /** The track entry being read: its number and codec as they come. */
  #entry: { number?: number; codec?: string } = {};
  readonly #opusTracks = new Set<number>();
  readonly #samples = new Map<number, number>();

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length && !this.#stopped) {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, chunk.length - i);
        this.#skip -= step;
        i += step;
        continue;
      }
      const reading = this.#reading;
      if (reading !== undefined) {
        const take = Math.min(reading.remaining, chunk.length - i);
        reading.parts.push(chunk.subarray(i, i + take));
        reading.remaining -= take;
        i += take;
        if (reading.remaining === 0) this.#endRead(reading);
        continue;
      }
      this.#head.push(chunk[i] as number);
      i += 1;
      this.#onHeadByte();
    }
  }

  seconds(): number {
    return Math.max(0, ...this.#samples.values()) / OPUS_RATE;
  }

  /** Whether an Opus track was seen. */
  hasOpus(): boolean {
    return this.#opusTracks.size > 0;
  }

  #onHeadByte(): void {
    const head = this.#head;
    const idLength = vintLength(head[0] as number);
    if (idLength === undefined || idLength > 4) {
      this.#stopped = true;
      return;
    }
    if (head.length <= idLength) return;
    const sizeLength = vintLength(head[idLength] as number);
    if (sizeLength === undefined) {
      this.#stopped = true;
      return;
    }
    if (head.length < idLength + sizeLength) return;
    const id = head.slice(0, idLength).reduce((value, byte) => value * 256 + byte, 0);
    const size = vintValue(head.slice(idLength));
    this.#head = [];
    this.#onElement(id, size);
  }

  /** An element's header read: walk into it, read its body, or skip it. `size` undefined: unknown. */
  #onElement(id: number, size: number | undefined): void {
    if (CONTAINERS.has(id)) {
      if (id === TRACK_ENTRY) this.#entry = {};
      return;
    }
    if (size === undefined) {
      this.#stopped = true;
      return;
    }
    const wanted = BLOCKS.has(id) || id === TRACK_NUMBER || id === CODEC_ID;
    if (wanted && size > 0 && size <= MAX_READ_BYTES) this.#reading = { id, parts: [], remaining: size };
    else this.#skip = size;
  }

  #endRead(reading: Reading): void {
    this.#reading = undefined;
    const body = Buffer.concat(reading.parts);
    if (BLOCKS.has(reading.id)) {
      this.#onBlock(body);
      return;
    }
    if (reading.id === TRACK_NUMBER) this.#entry.number = body.reduce((value, byte) => value * 256 + byte, 0);
    else this.#entry.codec = body.toString('latin1').replace(/\0+$/, '');
    const { number, codec } = this.#entry;
    if (number !== undefined && codec === 'A_OPUS') this.#opusTracks.add(number);
  }

  /** A block of an Opus track: each of its frames counts the duration of its TOC. */
  #onBlock(body: Buffer): void {
    const trackLength = vintLength(body[0] ?? 0);
    if (trackLength === undefined) return;
    const track = vintValue([...body.subarray(0, trackLength)]);
    if (track === undefined || !this.#opusTracks.has(track)) return;
    let samples = 0;
    // After the track number: a 2-byte timecode, then the flags.
    for (const start of frameStarts(body, trackLength + 2)) {
      samples += opusPacketSamples([body[start] ?? 0, body[start + 1] ?? 0]);
    }
    this.#samples.set(track, (this.#samples.get(track) ?? 0) + samples);
  }
}

/**
 * Where each frame of a block starts, from its flags (at `at`, after the track number and the
 * timecode): one frame, or Xiph, fixed-size or EBML lacing (Matroska's specification, "Block
 * Lacing"). Empty when the lacing does not fit the block.
 */
function frameStarts(body: Buffer, at: number): number[] {
  const lacing = ((body[at] ?? 0) >> 1) & 0x03;
  if (lacing === 0) return at + 1 < body.length ? [at + 1] : [];
  const count = (body[at + 1] ?? 0) + 1;
  let position = at + 2;
  const sizes: number[] = [];
  if (lacing === 2) {
    const size = (body.length - position) / count;
    return Number.isInteger(size) ? Array.from({ length: count }, (_, k) => position + k * size) : [];
  }
  for (let k = 0; k < count - 1; k += 1) {
    const read =
      lacing === 1 ? xiphSize(body, position) : ebmlLaceSize(body, position, sizes.at(-1), k === 0);
    if (read === undefined) return [];
    sizes.push(read.size);
    position = read.next;
  }
  const starts: number[] = [];
  for (const size of sizes) {
    starts.push(position);
    position += size;
  }
  return position < body.length ? [...starts, position] : [];
}

/** A Xiph lace size: bytes of 255 add up until one below. */
function xiphSize(body: Buffer, at: number): { size: number; next: number } | undefined {
  let size = 0;
  let position = at;
  for (;;) {
    const byte = body[position];
    if (byte === undefined) return undefined;
    size += byte;
    position += 1;
    if (byte < 255) return { size, next: position };
  }
}

/** An EBML lace size: the first as an unsigned vint, each next as a signed difference from the last. */
function ebmlLaceSize(
  body: Buffer,
  at: number,
  previous: number | undefined,
  first: boolean,
): { size: number; next: number } | undefined {
  const length = vintLength(body[at] ?? 0);
  if (length === undefined) return undefined;
  const value = vintValue([...body.subarray(at, at + length)]);
  if (value === undefined) return undefined;
  const size = first ? value : (previous ?? 0) + value - (2 ** (7 * length - 1) - 1);
  return size < 0 ? undefined : { size, next: at + length };
}

/** Bytes of an EBML variable-length integer, from its first byte (its leading zeros); undefined for 0. */
function vintLength(first: number): number | undefined {
  for (let length = 1; length <= 8; length += 1) if (first & (0x100 >> length)) return length;
  return undefined;
}

/** The value of an EBML variable-length integer (marker bit removed); undefined when "unknown" (all ones). */
function vintValue(bytes: readonly number[]): number | undefined {
  const length = vintLength(bytes[0] ?? 0) ?? 1;
  let value = (bytes[0] ?? 0) & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let k = 1; k < length; k += 1) {
    const byte = bytes[k] ?? 0;
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return allOnes ? undefined : value;
}
