import { readdirSync, statSync } from 'node:fs';
import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import {
  DEMO_MP4_ASSET,
  DEMO_MP4_MAX_SECONDS,
  demoMp4,
} from '../../../../shared/src/file-formats/builders/mp4.ts';

const ascii = (bytes: Uint8Array, at: number) => new TextDecoder('latin1').decode(bytes.subarray(at, at + 4));

/** Offset of the first box of `type` at top level or inside moov/trak/mdia/minf/stbl. */
function boxAt(bytes: Uint8Array, type: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const containers = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);
  const walk = (start: number, end: number): number => {
    for (let at = start; at + 8 <= end; at += view.getUint32(at)) {
      if (ascii(bytes, at + 4) === type) return at;
      if (containers.has(ascii(bytes, at + 4))) {
        const found = walk(at + 8, at + view.getUint32(at));
        if (found >= 0) return found;
      }
    }
    return -1;
  };
  return walk(0, bytes.length);
}

describe('demo mp4', () => {
  it('ships one small asset with the recorded properties', () => {
    const dir = new URL('../../../../shared/src/file-formats/assets/', import.meta.url);
    const total = readdirSync(dir).reduce((sum, name) => sum + statSync(new URL(name, dir)).size, 0);
    expect(total).toBeLessThan(300_000);
    const mp4 = demoMp4(DEMO_MP4_ASSET.seconds);
    expect(mp4).toHaveLength(DEMO_MP4_ASSET.bytes);
    expect(boxAt(mp4, 'moov')).toBeLessThan(boxAt(mp4, 'mdat')); // faststart
  });

  it('starts with an ftyp box and is measured by music-metadata at the requested duration', async () => {
    for (const seconds of [1, 4, 8, 10, 60]) {
      const mp4 = demoMp4(seconds);
      expect(ascii(mp4, 4)).toBe('ftyp');
      const metadata = await parseBuffer(mp4, undefined, { duration: true });
      expect(metadata.format.hasVideo).toBe(true);
      expect(metadata.format.hasAudio).toBe(false);
      const [track] = metadata.format.trackInfo;
      expect(track?.video).toEqual({ pixelWidth: DEMO_MP4_ASSET.width, pixelHeight: DEMO_MP4_ASSET.height });
      expect(track?.duration).toBeCloseTo(seconds, 6);
    }
  });

  it('re-times the movie, track, edit list and samples consistently', () => {
    const mp4 = demoMp4(12.5);
    const view = new DataView(mp4.buffer, mp4.byteOffset, mp4.byteLength);
    const mvhd = boxAt(mp4, 'mvhd');
    expect(view.getUint32(mvhd + 24) / view.getUint32(mvhd + 20)).toBe(12.5);
    expect(view.getUint32(boxAt(mp4, 'tkhd') + 28)).toBe(12500);
    const mdhd = boxAt(mp4, 'mdhd');
    expect(view.getUint32(mdhd + 20)).toBe(DEMO_MP4_ASSET.frames * 1000);
    expect(view.getUint32(mdhd + 24) / view.getUint32(mdhd + 20)).toBe(12.5);
    const stts = boxAt(mp4, 'stts');
    expect([view.getUint32(stts + 12), view.getUint32(stts + 16), view.getUint32(stts + 20)]).toEqual([
      1,
      DEMO_MP4_ASSET.frames,
      12500,
    ]);
  });

  it('returns a fresh copy each time and rejects durations out of range', () => {
    const first = demoMp4(8);
    first.fill(0);
    expect(ascii(demoMp4(8), 4)).toBe('ftyp');
    expect(() => demoMp4(0.5)).toThrow(RangeError);
    expect(() => demoMp4(DEMO_MP4_MAX_SECONDS + 1)).toThrow(RangeError);
    expect(() => demoMp4(Number.NaN)).toThrow(RangeError);
  });
});
