/**
 * An MP3 builder: MPEG-1 Layer III, constant bit rate, mono, silent. Each frame is a 4-byte header
 * (no CRC), 17 bytes of side information that are all zero (main_data_begin 0, part2_3_length 0 in
 * both granules: no Huffman data, so the frame decodes to 1152 samples of silence), then zero
 * padding up to the frame length floor(144 * bitrate / sampleRate) (+1 byte on the padded frames
 * that keep the average bit rate exact at 44.1 kHz). No ID3 tag and no Xing header: a plain CBR
 * stream whose duration is frames * 1152 / sampleRate.
 */

/** Samples per MPEG-1 Layer III frame. */
export const MP3_SAMPLES_PER_FRAME = 1152;

/** MPEG-1 Layer III bit rates (kbps) by header index 1 to 14. */
const BITRATES_KBPS = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] as const;
/** MPEG-1 sample rates by header index 0 to 2. */
const SAMPLE_RATES = [44100, 48000, 32000] as const;

export type Mp3Bitrate = (typeof BITRATES_KBPS)[number];
export type Mp3SampleRate = (typeof SAMPLE_RATES)[number];

export interface Mp3Options {
  /** Kilobits per second; 128 unless given. */
  bitrateKbps?: Mp3Bitrate;
  /** Hz; 44100 unless given. */
  sampleRate?: Mp3SampleRate;
}

interface FrameLayout {
  header: [number, number, number, number];
  /** Frame length without padding, in bytes. */
  bytes: number;
  /** The part of a byte per frame that padding must make up, as a fraction remainder / sampleRate. */
  remainder: number;
  sampleRate: number;
}

function layoutOf(options: Mp3Options): FrameLayout {
  const bitrateKbps = options.bitrateKbps ?? 128;
  const sampleRate = options.sampleRate ?? 44100;
  const bitrateIndex = BITRATES_KBPS.indexOf(bitrateKbps) + 1;
  const rateIndex = SAMPLE_RATES.indexOf(sampleRate);
  if (bitrateIndex < 1) throw new RangeError(`Unsupported MP3 bit rate: ${bitrateKbps} kbps.`);
  if (rateIndex < 0) throw new RangeError(`Unsupported MP3 sample rate: ${sampleRate} Hz.`);
  const numerator = 144 * bitrateKbps * 1000;
  return {
    // sync + MPEG-1 + Layer III + no CRC; bit rate, sample rate; mono, original
    header: [0xff, 0xfb, (bitrateIndex << 4) | (rateIndex << 2), 0xc4],
    bytes: Math.floor(numerator / sampleRate),
    remainder: numerator % sampleRate,
    sampleRate,
  };
}

/** Byte length of each of `count` frames, padding spread as an encoder does (exact average rate). */
function frameLengths(layout: FrameLayout, count: number): number[] {
  const lengths: number[] = [];
  let carried = 0;
  for (let i = 0; i < count; i += 1) {
    carried += layout.remainder;
    const padded = carried >= layout.sampleRate;
    if (padded) carried -= layout.sampleRate;
    lengths.push(layout.bytes + (padded ? 1 : 0));
  }
  return lengths;
}

/** An MP3 of `count` silent frames: count * 1152 / sampleRate seconds. */
export function mp3OfFrames(count: number, options: Mp3Options = {}): Uint8Array {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`MP3 frame count must be a positive integer, got ${count}.`);
  }
  const layout = layoutOf(options);
  const lengths = frameLengths(layout, count);
  const out = new Uint8Array(lengths.reduce((sum, length) => sum + length, 0));
  let at = 0;
  for (const length of lengths) {
    const [b0, b1, b2, b3] = layout.header;
    out.set([b0, b1, length > layout.bytes ? b2 | 0x02 : b2, b3], at);
    at += length; // side information and main data stay zero
  }
  return out;
}

/** Frames needed for `seconds` (nearest whole frame, at least one). */
export function mp3FrameCount(seconds: number, sampleRate: Mp3SampleRate = 44100): number {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`MP3 duration must be a non-negative number of seconds, got ${seconds}.`);
  }
  return Math.max(1, Math.round((seconds * sampleRate) / MP3_SAMPLES_PER_FRAME));
}

/** Duration of `count` frames, in seconds. */
export function mp3Seconds(count: number, sampleRate: Mp3SampleRate = 44100): number {
  return (count * MP3_SAMPLES_PER_FRAME) / sampleRate;
}

/** An MP3 lasting `seconds`, to the nearest frame (26.1 ms at 44.1 kHz). */
export function mp3OfSeconds(seconds: number, options: Mp3Options = {}): Uint8Array {
  return mp3OfFrames(mp3FrameCount(seconds, options.sampleRate), options);
}
