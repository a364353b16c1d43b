import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { mp3OfFrames, mp3OfSeconds } from '../../../../../shared/src/file-formats/builders/mp3.ts';
import { parseMp3Header } from '../../../../../shared/src/file-formats/mp3-frames.ts';
import { audioMeterFor } from '../../../../../shared/src/native/elevenlabs/audio-duration.ts';
import { chunksOf } from '../chunking.ts';

function measure(format: string | undefined, chunks: readonly Uint8Array[]): number | undefined {
  const meter = audioMeterFor(format);
  if (meter === undefined) return undefined;
  for (const chunk of chunks) meter.push(chunk);
  return meter.seconds();
}

/** An ID3v2.4 tag of `size` bytes of content (syncsafe size). */
function id3(size: number): Uint8Array {
  const header = [
    0x49,
    0x44,
    0x33,
    4,
    0,
    0,
    (size >> 21) & 0x7f,
    (size >> 14) & 0x7f,
    (size >> 7) & 0x7f,
    size & 0x7f,
  ];
  return new Uint8Array([...header, ...new Array<number>(size).fill(0xff)]);
}

/** A first frame carrying a Xing tag, as LAME writes it (mono MPEG-1: after 17 bytes of side info). */
function xingFrame(): Uint8Array {
  const frame = mp3OfFrames(1);
  frame.set(new TextEncoder().encode('Xing'), 4 + 17);
  return frame;
}

const concat = (...parts: Uint8Array[]) => new Uint8Array(parts.flatMap((part) => [...part]));

describe('audio duration meters', () => {
  it('measures an MP3 by its frames however it is chunked, as music-metadata does', async () => {
    const mp3 = mp3OfFrames(383);
    const expected = (383 * 1152) / 44100;
    for (const size of [1, 3, 417, 418, 4096, mp3.length]) {
      expect(measure('mp3_44100_128', chunksOf(mp3, size))).toBeCloseTo(expected, 9);
    }
    const metadata = await parseBuffer(mp3, undefined, { duration: true });
    expect(metadata.format.duration).toBeCloseTo(expected, 2);
  });

  it('skips an ID3v2 tag, a Xing frame and trailing bytes, and counts only whole frames', () => {
    const body = concat(
      id3(300),
      xingFrame(),
      mp3OfFrames(100),
      new TextEncoder().encode('TAG trailing id3v1'),
    );
    expect(measure(undefined, chunksOf(body, 7))).toBeCloseTo((100 * 1152) / 44100, 9);
    const cut = mp3OfFrames(10).subarray(0, mp3OfFrames(9).length + 200);
    expect(measure(undefined, [cut])).toBeCloseTo((9 * 1152) / 44100, 9);
  });

  it('measures other bit and sample rates', () => {
    expect(measure('mp3_22050_32', [mp3OfSeconds(3, { bitrateKbps: 32, sampleRate: 48000 })])).toBeCloseTo(
      3,
      1,
    );
  });

  it('measures PCM and G.711 by byte rate, and cannot measure Opus', () => {
    expect(measure('pcm_16000', [new Uint8Array(32000), new Uint8Array(16000)])).toBe(1.5);
    expect(measure('ulaw_8000', [new Uint8Array(4000)])).toBe(0.5);
    expect(measure('opus_48000_64', [new Uint8Array(10)])).toBeUndefined();
  });

  it('decodes MPEG-2 Layer III headers and refuses reserved values', () => {
    // MPEG-2, layer III, 64 kbps, 22050 Hz, no padding, stereo: 72 * 64000 / 22050 = 208 bytes, 576 samples.
    expect(parseMp3Header(0xff, 0xf3, 0x80, 0x00)).toEqual({
      length: 208,
      samples: 576,
      sampleRate: 22050,
      xingOffset: 21,
    });
    expect(parseMp3Header(0xff, 0xfb, 0xf0, 0xc4)).toBeUndefined(); // bit rate index 15
    expect(parseMp3Header(0xff, 0xfb, 0x9c, 0xc4)).toBeUndefined(); // sample rate index 3
    expect(parseMp3Header(0xff, 0xf9, 0x90, 0xc4)).toBeUndefined(); // layer 4 (reserved)
  });
});
