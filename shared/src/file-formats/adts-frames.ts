/**
 * AAC in ADTS (ISO/IEC 13818-7, 14496-3): the duration of the frames a decoder plays, walked from
 * the bytes as they pass, never estimated from a few frames and the file's size. Each frame's
 * 7-byte header (9 with a CRC) gives its length, its sample rate and its raw data blocks of 1,024
 * samples each.
 */
import type { AudioDurationMeter } from './audio-duration-meter.ts';
import { SyncFrameWalker } from './sync-frames.ts';

const SAMPLE_RATES = [
  96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
];
const HEADER_BYTES = 7;
const SAMPLES_PER_BLOCK = 1024;
/** The most bits an AAC frame carries per channel (6,144: ISO/IEC 14496-3, 4.5.3.1). */
const MAX_BITS_PER_CHANNEL_FRAME = 6144;
/** Channels assumed where the header leaves them to a program config element (0). */
const MAX_CHANNELS = 8;

interface AdtsFrame {
  readonly length: number;
  readonly samples: number;
  readonly sampleRate: number;
  /** The most bytes a second audio of this frame's rate and channels can take. */
  readonly maxBytesPerSecond: number;
}

/** The frame a 7-byte ADTS header starts, or undefined when the bytes are not one. */
export function parseAdtsHeader(head: readonly number[]): AdtsFrame | undefined {
  const [b0, b1, b2, b3, b4, b5, b6] = head as [number, number, number, number, number, number, number];
  // 12-bit sync word, layer 00.
  if (b0 !== 0xff || (b1 & 0xf6) !== 0xf0) return undefined;
  const sampleRate = SAMPLE_RATES[(b2 >> 2) & 0x0f];
  const length = ((b3 & 0x03) << 11) | (b4 << 3) | (b5 >> 5);
  const headerBytes = (b1 & 0x01) === 1 ? HEADER_BYTES : HEADER_BYTES + 2;
  if (sampleRate === undefined || length < headerBytes) return undefined;
  const channels = ((b2 & 0x01) << 2) | (b3 >> 6) || MAX_CHANNELS;
  const blocks = (b6 & 0x03) + 1;
  const maxBytesPerSecond = ((MAX_BITS_PER_CHANNEL_FRAME / 8) * channels * sampleRate) / SAMPLES_PER_BLOCK;
  return { length, samples: blocks * SAMPLES_PER_BLOCK, sampleRate, maxBytesPerSecond };
}

/** Walks ADTS frames across chunks (`SyncFrameWalker`); `seconds()` is the duration of the whole frames seen. */
export class AdtsFrameMeter implements AudioDurationMeter {
  #seconds = 0;
  #maxBytesPerSecond = 0;
  readonly #walker = new SyncFrameWalker<AdtsFrame>({
    headerBytes: HEADER_BYTES,
    parse: parseAdtsHeader,
    onFrame: (frame) => {
      this.#seconds += frame.samples / frame.sampleRate;
      this.#maxBytesPerSecond = Math.max(this.#maxBytesPerSecond, frame.maxBytesPerSecond);
    },
  });

  push(chunk: Uint8Array): void {
    this.#walker.push(chunk);
  }

  seconds(): number {
    return this.#seconds;
  }

  /** The largest byte rate any frame seen allows (0 before the first): the floor of what bytes are. */
  maxBytesPerSecond(): number {
    return this.#maxBytesPerSecond;
  }
}
