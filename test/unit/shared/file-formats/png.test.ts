import { describe, expect, it } from 'vitest';
import {
  encodePng,
  PATTERN_CELLS,
  PNG_SIGNATURE,
  patternColours,
  patternPng,
  solidPng,
} from '../../../../shared/src/file-formats/builders/png.ts';
import { decodePng } from '../../../helpers/png-decode.ts';

describe('png builder', () => {
  it('writes signature, IHDR, IDAT, IEND with valid CRCs, and IDAT inflates to the scanlines', () => {
    const png = solidPng(7, 5, [10, 20, 30]);
    expect(Array.from(png.subarray(0, 8))).toEqual(Array.from(PNG_SIGNATURE));
    const decoded = decodePng(png);
    expect(decoded.chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([decoded.width, decoded.height, decoded.colourType]).toEqual([7, 5, 2]);
    expect(decoded.scanlines).toHaveLength(5 * (1 + 7 * 3));
    for (let y = 0; y < 5; y += 1) {
      expect(decoded.scanlines[y * 22]).toBe(0); // filter type None
      for (let x = 0; x < 7; x += 1) expect(decoded.pixel(x, y)).toEqual([10, 20, 30]);
    }
  });

  it('draws the seeded pattern: a grid of cells, deterministic per seed', () => {
    const colours = patternColours(42);
    expect(colours).toHaveLength(PATTERN_CELLS * PATTERN_CELLS);
    const decoded = decodePng(patternPng(80, 40, 42));
    expect([decoded.width, decoded.height]).toEqual([80, 40]);
    expect(decoded.pixel(0, 0)).toEqual(colours[0]);
    expect(decoded.pixel(79, 0)).toEqual(colours[PATTERN_CELLS - 1]);
    expect(decoded.pixel(12, 7)).toEqual(colours[PATTERN_CELLS + 1]); // cells are 10x5 pixels
    expect(decoded.pixel(79, 39)).toEqual(colours[PATTERN_CELLS * PATTERN_CELLS - 1]);
    expect(patternPng(80, 40, 42)).toEqual(patternPng(80, 40, 42));
    expect(patternPng(80, 40, 43)).not.toEqual(patternPng(80, 40, 42));
  });

  it('handles sides smaller than the grid and large images', () => {
    expect(decodePng(patternPng(1, 3, 1)).scanlines).toHaveLength(3 * 4);
    const large = patternPng(2048, 2048, 7);
    expect(large.length).toBeLessThan(200_000);
    expect(decodePng(large).scanlines).toHaveLength(2048 * (1 + 2048 * 3));
  });

  it('rejects bad sizes and scanline lengths', () => {
    expect(() => solidPng(0, 1, [0, 0, 0])).toThrow(RangeError);
    expect(() => patternPng(1.5, 1, 0)).toThrow(RangeError);
    expect(() => patternPng(1, 9000, 0)).toThrow(RangeError);
    expect(() => encodePng(2, 2, new Uint8Array(13))).toThrow(RangeError);
  });
});
