/**
 * Opus in Ogg (RFC 7845): the duration of the packets a decoder plays, walked from the pages as
 * they pass, never the granule position a page states (the last page's granule is what a reader
 * takes for the duration, and a file can state less than it holds). Each Opus packet's first byte
 * (its TOC, RFC 6716 section 3.1) gives its frame size and frame count; a packet's duration is
 * theirs. Pages are found by their capture pattern (`OggS`), bytes between pages skipped as a
 * reader resynchronises; every logical stream whose first packet is `OpusHead` is measured, and
 * streams played side by side (multiplexed) count as the longest of them. Only complete packets
 * count.
 */
import type { AudioDurationMeter } from './audio-duration-meter.ts';

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const PAGE_HEADER_BYTES = 27;
const OPUS_RATE = 48_000;
/** Bytes of a packet's start kept: enough for `OpusHead` / `OpusTags` and a TOC's frame count. */
const PACKET_START_BYTES = 8;
const LACING_CONTINUES = 255;

/** Samples at 48 kHz of a frame, by the TOC's configuration number (RFC 6716, table 2). */
function frameSamples(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config % 4] as number; // SILK: 10 to 60 ms
  if (config < 16) return [480, 960][config % 2] as number; // hybrid: 10, 20 ms
  return [120, 240, 480, 960][config % 4] as number; // CELT: 2.5 to 20 ms
}

/** Samples at 48 kHz of an Opus packet from its first bytes (TOC and, for code 3, its frame count). */
export function opusPacketSamples(start: readonly number[]): number {
  const toc = start[0];
  if (toc === undefined) return 0;
  const code = toc & 0x03;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (start[1] ?? 0) & 0x3f;
  return frames * frameSamples(toc >> 3);
}

/** What is known of one logical stream (one serial number). */
interface LogicalStream {
  /** Undecided until its first packet; then whether it is Opus. */
  opus: boolean | undefined;
  /** Opus packets seen (the first two are its headers). */
  packets: number;
  samples: number;
  /** The start of the packet in progress (it may continue on the stream's next page). */
  packet: number[] | undefined;
}

/** The page being read: its stream, its lacing values, the segment being read and its bytes left. */
interface PageInProgress {
  readonly stream: LogicalStream;
  readonly lacing: readonly number[];
  segment: number;
  left: number;
}

/** Walks Ogg pages across chunks; `seconds()` is the duration of the Opus packets seen. */
export class OggOpusMeter implements AudioDurationMeter {
  #header: number[] = [];
  #page: PageInProgress | undefined;
  readonly #streams = new Map<number, LogicalStream>();

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      const page = this.#page;
      if (page === undefined) {
        i = this.#readHeader(chunk, i);
        continue;
      }
      if (page.left > 0) {
        const take = Math.min(page.left, chunk.length - i);
        const packet = page.stream.packet ?? [];
        for (let k = 0; k < take && packet.length < PACKET_START_BYTES; k += 1)
          packet.push(chunk[i + k] as number);
        page.stream.packet = packet;
        page.left -= take;
        i += take;
        if (page.left > 0) continue;
      }
      this.#endSegment(page);
    }
  }

  seconds(): number {
    let samples = 0;
    for (const stream of this.#streams.values())
      if (stream.opus === true) samples = Math.max(samples, stream.samples);
    return samples / OPUS_RATE;
  }

  /** Whether an Opus stream was seen (its `OpusHead`). */
  hasOpus(): boolean {
    return [...this.#streams.values()].some((stream) => stream.opus === true);
  }

  /** Reads a page header (and its segment table) from `chunk` at `at`; where it stopped. */
  #readHeader(chunk: Uint8Array, at: number): number {
    let i = at;
    const head = this.#header;
    while (i < chunk.length) {
      if (head.length === 0) {
        const capture = chunk.indexOf(CAPTURE[0] as number, i);
        if (capture < 0) return chunk.length;
        i = capture;
      }
      head.push(chunk[i] as number);
      i += 1;
      if (head.length <= CAPTURE.length && head[head.length - 1] !== CAPTURE[head.length - 1]) {
        // Not a page: resynchronise from the next byte.
        head.splice(0, 1);
        const next = head.indexOf(CAPTURE[0] as number);
        head.splice(0, next < 0 ? head.length : next);
        continue;
      }
      const segments = head[PAGE_HEADER_BYTES - 1];
      if (head.length >= PAGE_HEADER_BYTES && head.length === PAGE_HEADER_BYTES + (segments as number)) {
        this.#startPage(head);
        this.#header = [];
        return i;
      }
    }
    return i;
  }

  #startPage(head: readonly number[]): void {
    const serial = Buffer.from(head.slice(14, 18)).readUInt32LE(0);
    let stream = this.#streams.get(serial);
    if (stream === undefined) {
      stream = { opus: undefined, packets: 0, samples: 0, packet: undefined };
      this.#streams.set(serial, stream);
    }
    const lacing = head.slice(PAGE_HEADER_BYTES);
    this.#page = lacing.length === 0 ? undefined : { stream, lacing, segment: 0, left: lacing[0] as number };
  }

  /** A segment read whole: a lacing value below 255 ends its packet; the last one ends the page. */
  #endSegment(page: PageInProgress): void {
    if ((page.lacing[page.segment] as number) < LACING_CONTINUES) this.#endPacket(page.stream);
    page.segment += 1;
    if (page.segment >= page.lacing.length) {
      this.#page = undefined;
      return;
    }
    page.left = page.lacing[page.segment] as number;
  }

  #endPacket(stream: LogicalStream): void {
    const start = stream.packet ?? [];
    stream.packet = undefined;
    if (stream.opus === undefined) stream.opus = String.fromCharCode(...start) === 'OpusHead';
    stream.packets += 1;
    // The identification and comment headers are not audio.
    if (stream.opus && stream.packets > 2) stream.samples += opusPacketSamples(start);
  }
}
