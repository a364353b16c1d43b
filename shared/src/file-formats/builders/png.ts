/**
 * A minimal PNG encoder: 8-bit truecolour (colour type 2, no alpha), no interlace, every scanline
 * with filter type 0. Output: the signature, IHDR, one IDAT (zlib `deflateSync`), IEND, each chunk
 * with its CRC-32 (`zlib.crc32`). Valid for any decoder; pure and synchronous.
 */
import { crc32, deflateSync } from 'node:zlib';
import { randomSequence } from './seed.ts';

/** The 8 bytes every PNG starts with. */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
/** Largest width or height the builder accepts. */
export const PNG_MAX_SIDE = 8192;

export type Rgb = readonly [red: number, green: number, blue: number];

function checkSide(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > PNG_MAX_SIDE) {
    throw new RangeError(`PNG ${name} must be an integer from 1 to ${PNG_MAX_SIDE}, got ${value}.`);
  }
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function header(width: number, height: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data.set([8, 2, 0, 0, 0], 8); // bit depth 8, truecolour, deflate, filter method 0, no interlace
  return data;
}

/**
 * Encodes raw scanlines: `height` rows of `1 + width * 3` bytes, each a filter byte (0) then the
 * RGB triples of the row.
 */
export function encodePng(width: number, height: number, scanlines: Uint8Array): Uint8Array {
  checkSide('width', width);
  checkSide('height', height);
  if (scanlines.length !== height * (1 + width * 3)) {
    throw new RangeError(`Expected ${height * (1 + width * 3)} bytes of scanlines, got ${scanlines.length}.`);
  }
  const parts = [
    PNG_SIGNATURE,
    chunk('IHDR', header(width, height)),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Builds the scanlines of an image made of horizontal bands of identical rows: `rowOf(y)` gives
 * the pixel bytes (width * 3) of row y and is called once per distinct band key.
 */
function scanlinesOf(
  width: number,
  height: number,
  bandOf: (y: number) => number,
  rowOf: (band: number) => Uint8Array,
): Uint8Array {
  const stride = 1 + width * 3;
  const out = new Uint8Array(height * stride);
  const rows = new Map<number, Uint8Array>();
  for (let y = 0; y < height; y += 1) {
    const band = bandOf(y);
    let row = rows.get(band);
    if (row === undefined) {
      row = rowOf(band);
      rows.set(band, row);
    }
    out.set(row, y * stride + 1); // the filter byte stays 0
  }
  return out;
}

/** A PNG of one colour. */
export function solidPng(width: number, height: number, colour: Rgb): Uint8Array {
  checkSide('width', width);
  checkSide('height', height);
  const row = new Uint8Array(width * 3);
  for (let x = 0; x < width; x += 1) row.set(colour, x * 3);
  return encodePng(
    width,
    height,
    scanlinesOf(
      width,
      height,
      () => 0,
      () => row,
    ),
  );
}

/** Number of cells per side of the pattern of `patternPng`. */
export const PATTERN_CELLS = 8;

/** The colours of the pattern's cells, row by row: PATTERN_CELLS² colours drawn from the seed. */
export function patternColours(seed: number): Rgb[] {
  const next = randomSequence(seed);
  const byte = () => Math.floor(next() * 256);
  return Array.from({ length: PATTERN_CELLS * PATTERN_CELLS }, (): Rgb => [byte(), byte(), byte()]);
}

/**
 * A deterministic pattern: a PATTERN_CELLS x PATTERN_CELLS grid of cells whose colours come from
 * the seed (same seed, same image). Rows repeat within a cell band, so it compresses well even at
 * large sizes.
 */
export function patternPng(width: number, height: number, seed: number): Uint8Array {
  checkSide('width', width);
  checkSide('height', height);
  const colours = patternColours(seed);
  const bandOf = (y: number) => Math.floor((y * PATTERN_CELLS) / height);
  const rowOf = (band: number) => {
    const row = new Uint8Array(width * 3);
    for (let x = 0; x < width; x += 1) {
      const cell = band * PATTERN_CELLS + Math.floor((x * PATTERN_CELLS) / width);
      row.set(colours[cell] ?? [0, 0, 0], x * 3);
    }
    return row;
  };
  return encodePng(width, height, scanlinesOf(width, height, bandOf, rowOf));
}
