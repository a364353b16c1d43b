/**
 * MPEG audio frames (ISO/IEC 11172-3 and 13818-3 headers: each frame holds a fixed number of
 * samples), walked from the bytes as they pass: the duration of the frames a decoder plays, never
 * what a header (Xing, VBRI) states. An ID3v2 tag at the start is skipped by its stated size (a
 * decoder skips it too); a Xing/Info or VBRI frame (the first frame of a VBR or LAME file, silent
 * metadata) is not counted; bytes between frames (an ID3v1 tag at the end, garbage) are skipped
 * to the next frame (`SyncFrameWalker`), and a cut stream is measured to its last whole frame.
 */
import type { AudioDurationMeter } from './audio-duration-meter.ts';
import { SyncFrameWalker } from './sync-frames.ts';

/** One MPEG audio frame header, decoded. */
export interface Mp3Frame {
  readonly length: number;
  readonly samples: number;
  readonly sampleRate: number;
  /** Bytes from the frame start to a Xing/Info tag (after the side information). */
  readonly xingOffset: number;
}

const BITRATES_V1 = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // layer I
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // layer II
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // layer III
];
const BITRATES_V2 = [
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256], // layer I
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // layers II and III
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES: Readonly<Record<number, readonly number[]>> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000], // MPEG-2.5
};

/** The frame a 4-byte header starts, or undefined when the bytes are not a valid header. */
export function parseMp3Header(b0: number, b1: number, b2: number, b3: number): Mp3Frame | undefined {
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3;
  const layer = 4 - ((b1 >> 1) & 3); // 1, 2 or 3; 4 is reserved
  const rates = SAMPLE_RATES[version];
  const sampleRate = rates?.[(b2 >> 2) & 3];
  const kbps = (version === 3 ? BITRATES_V1 : BITRATES_V2)[layer - 1]?.[b2 >> 4];
  if (layer === 4 || sampleRate === undefined || kbps === undefined || kbps === 0) return undefined;
  const padding = (b2 >> 1) & 1;
  const bitrate = kbps * 1000;
  const mono = b3 >> 6 === 3;
  let length: number;
  let samples: number;
  if (layer === 1) {
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
    samples = 384;
  } else if (layer === 2 || version === 3) {
    length = Math.floor((144 * bitrate) / sampleRate) + padding;
    samples = 1152;
  } else {
    length = Math.floor((72 * bitrate) / sampleRate) + padding;
    samples = 576;
  }
  const sideInfo = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  return { length, samples, sampleRate, xingOffset: 4 + sideInfo };
}

const ASCII = new TextDecoder('latin1');

/** Whether a first frame (its first `INSPECTED_BYTES`) is a Xing/Info or VBRI metadata frame rather than audio. */
function isMetadataFrame(frame: Uint8Array, header: Mp3Frame): boolean {
  const tag = ASCII.decode(frame.subarray(header.xingOffset, header.xingOffset + 4));
  return tag === 'Xing' || tag === 'Info' || ASCII.decode(frame.subarray(36, 40)) === 'VBRI';
}

/** Bytes of a first frame that tell a metadata frame apart: a Xing/Info tag, or VBRI at 36. */
const INSPECTED_BYTES = 40;
/** Bytes of an ID3v2 header: "ID3", version (2), flags, size as 4 syncsafe bytes. */
const ID3_HEADER_BYTES = 10;

/** Walks MP3 frames across chunks (`SyncFrameWalker`): `seconds()` is the duration of the whole frames seen. */
export class Mp3FrameMeter implements AudioDurationMeter {
  /** The first bytes, until it is known whether they begin an ID3v2 tag. */
  #start: number[] | undefined = [];
  #tagBytes = 0;
  readonly #samples = new Map<number, number>();
  readonly #walker = new SyncFrameWalker<Mp3Frame>({
    headerBytes: 4,
    parse: (head) =>
      parseMp3Header(head[0] as number, head[1] as number, head[2] as number, head[3] as number),
    inspectBytes: INSPECTED_BYTES,
    onFrame: (frame, start) => {
      if (start === undefined || !isMetadataFrame(start, frame)) this.#count(frame);
    },
  });

  push(chunk: Uint8Array): void {
    const start = this.#start;
    if (start === undefined) {
      this.#walker.push(chunk);
      return;
    }
    let i = 0;
    while (i < chunk.length && start.length < ID3_HEADER_BYTES && isId3Prefix(start)) {
      start.push(chunk[i] as number);
      i += 1;
    }
    if (start.length < ID3_HEADER_BYTES && isId3Prefix(start)) return;
    this.#start = undefined;
    if (isId3Prefix(start)) this.#skipTag(start);
    else this.#walker.push(Uint8Array.from(start));
    this.#walker.push(chunk.subarray(i));
  }

  seconds(): number {
    let seconds = 0;
    for (const [rate, samples] of this.#samples) seconds += samples / rate;
    return seconds;
  }

  /** Bytes of the ID3v2 tag at the start (its stated size, skipped), 0 without one. */
  tagBytes(): number {
    return this.#tagBytes;
  }

  /** Skips an ID3v2 tag by its stated size (syncsafe); a footer adds 10. */
  #skipTag(header: readonly number[]): void {
    const size =
      ((header[6] ?? 0) << 21) | ((header[7] ?? 0) << 14) | ((header[8] ?? 0) << 7) | (header[9] ?? 0);
    const rest = size + (((header[5] ?? 0) & 0x10) !== 0 ? 10 : 0);
    this.#tagBytes = ID3_HEADER_BYTES + rest;
    this.#walker.skip(rest);
  }

  #count(frame: Mp3Frame): void {
    this.#samples.set(frame.sampleRate, (this.#samples.get(frame.sampleRate) ?? 0) + frame.samples);
  }
}

/** Whether the bytes so far may still begin "ID3". */
function isId3Prefix(head: readonly number[]): boolean {
  const id3 = [0x49, 0x44, 0x33];
  return head.every((byte, i) => i >= 3 || byte === id3[i]);
}
