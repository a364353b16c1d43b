import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import {
  MP3_SAMPLES_PER_FRAME,
  mp3FrameCount,
  mp3OfFrames,
  mp3OfSeconds,
  mp3Seconds,
} from '../../../../shared/src/file-formats/builders/mp3.ts';

/** Walks the frames by their headers: [header bytes, frame length] per frame. */
function frames(mp3: Uint8Array): Array<[number[], number]> {
  const out: Array<[number[], number]> = [];
  let at = 0;
  while (at < mp3.length) {
    const header = Array.from(mp3.subarray(at, at + 4));
    const padded = ((header[2] ?? 0) & 0x02) !== 0;
    const length = 417 + (padded ? 1 : 0); // 128 kbps at 44.1 kHz
    out.push([header, length]);
    at += length;
  }
  expect(at).toBe(mp3.length);
  return out;
}

describe('mp3 builder', () => {
  it('writes 128 kbps / 44.1 kHz MPEG-1 Layer III frames of 417 or 418 bytes, exact average rate', () => {
    const mp3 = mp3OfFrames(100);
    const walked = frames(mp3);
    expect(walked).toHaveLength(100);
    for (const [header, length] of walked) {
      expect(header).toEqual([0xff, 0xfb, length === 418 ? 0x92 : 0x90, 0xc4]);
    }
    // 144 * 128000 / 44100 = 417.959… bytes a frame on average
    expect(mp3.length).toBe(Math.floor((100 * 144 * 128000) / 44100));
  });

  it('is measured by music-metadata at N × 1152 / 44100 seconds', async () => {
    for (const count of [4, 77, 383, 2000]) {
      const metadata = await parseBuffer(mp3OfFrames(count), undefined, { duration: true });
      expect(metadata.format.container).toBe('MPEG');
      expect(metadata.format.codec).toBe('MPEG 1 Layer 3');
      expect(metadata.format.sampleRate).toBe(44100);
      expect(metadata.format.bitrate).toBe(128000);
      expect(metadata.format.duration).toBeCloseTo((count * MP3_SAMPLES_PER_FRAME) / 44100, 2);
    }
  });

  it('supports other bit rates and sample rates', async () => {
    const mp3 = mp3OfSeconds(3, { bitrateKbps: 32, sampleRate: 48000 });
    expect(mp3.length).toBe(mp3FrameCount(3, 48000) * 96); // 144 * 32000 / 48000, never padded
    const metadata = await parseBuffer(mp3, undefined, { duration: true });
    expect(metadata.format.sampleRate).toBe(48000);
    expect(metadata.format.bitrate).toBe(32000);
    expect(metadata.format.duration).toBeCloseTo(mp3Seconds(mp3FrameCount(3, 48000), 48000), 3);
  });

  it('lasts the requested seconds to the nearest frame', async () => {
    expect(mp3FrameCount(0)).toBe(1);
    expect(mp3FrameCount(1)).toBe(38); // 44100 / 1152 = 38.28
    for (const seconds of [1, 2.5, 30]) {
      const metadata = await parseBuffer(mp3OfSeconds(seconds), undefined, { duration: true });
      expect(Math.abs((metadata.format.duration ?? 0) - seconds)).toBeLessThan(1152 / 44100);
    }
  });

  it('rejects bad arguments', () => {
    expect(() => mp3OfFrames(0)).toThrow(RangeError);
    expect(() => mp3OfSeconds(-1)).toThrow(RangeError);
    // @ts-expect-error: not an MPEG-1 Layer III bit rate
    expect(() => mp3OfFrames(1, { bitrateKbps: 100 })).toThrow(RangeError);
  });
});
