/**
 * Real, small media files built in-process for the fake media upstreams, so tests can check what
 * a client would check: a PNG that decoders accept, MP3 frames a player can count, an MP4 that
 * starts with a valid `ftyp` box and states its duration.
 *
 * - PNG (ISO/IEC 15948): signature, IHDR (8-bit RGBA), one IDAT (zlib), IEND, each chunk with its
 *   CRC-32 over type and data.
 * - MP3: silent MPEG-1 Layer III frames, 128 kbps, 44.1 kHz, mono, no CRC: header
 *   `FF FB 90 C4`, 417 bytes per frame, 1152 samples (about 26.1 ms) each; all-zero side info and
 *   main data decode to silence.
 * - MP4 (ISO/IEC 14496-12): `ftyp` (isom) followed by a `moov` holding an `mvhd` with the duration.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

export interface PngOptions {
  width: number;
  height: number;
  /** Two RGBA colours drawn as a 4-pixel checkerboard. */
  colors: readonly [readonly number[], readonly number[]];
}

/** A valid RGBA PNG of the given size. */
export function pngImage({ width, height, colors }: PngOptions): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, filter 0, no interlace
  const rowLength = 1 + width * 4;
  const raw = Buffer.alloc(rowLength * height);
  for (let y = 0; y < height; y += 1) {
    raw[y * rowLength] = 0; // filter type None
    for (let x = 0; x < width; x += 1) {
      const color = colors[(Math.floor(x / 4) + Math.floor(y / 4)) % 2] ?? [0, 0, 0, 255];
      raw.set(color, y * rowLength + 1 + x * 4);
    }
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG derived from a seed (the prompt): same seed, same bytes. Transparent images have alpha 0 cells. */
export function seededPng(seed: string, width: number, height: number, transparent = false): Buffer {
  const digest = createHash('sha256').update(seed).digest();
  const first = [digest[0] ?? 0, digest[1] ?? 0, digest[2] ?? 0, 255];
  const second = [digest[3] ?? 0, digest[4] ?? 0, digest[5] ?? 0, transparent ? 0 : 255];
  return pngImage({ width, height, colors: [first, second] });
}

export const MP3_FRAME_HEADER = Buffer.from([0xff, 0xfb, 0x90, 0xc4]);
/** floor(144 * 128000 / 44100) bytes, no padding. */
export const MP3_FRAME_BYTES = 417;
export const MP3_FRAME_SECONDS = 1152 / 44100;

/** `frames` silent MPEG-1 Layer III frames. */
export function silentMp3(frames: number): Buffer {
  const frame = Buffer.alloc(MP3_FRAME_BYTES);
  MP3_FRAME_HEADER.copy(frame);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from(type, 'latin1'), body]);
}

function movieHeader(durationSeconds: number): Buffer {
  const mvhd = Buffer.alloc(100);
  const timescale = 1000;
  mvhd.writeUInt32BE(0, 0); // version 0, flags 0
  mvhd.writeUInt32BE(timescale, 12);
  mvhd.writeUInt32BE(Math.round(durationSeconds * timescale), 16);
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
  for (const [index, value] of matrix.entries()) mvhd.writeUInt32BE(value, 36 + index * 4);
  mvhd.writeUInt32BE(1, 96); // next track id
  return box('mvhd', mvhd);
}

/** A tiny MP4 skeleton: `ftyp` + `moov`/`mvhd` stating the duration, then an empty `mdat`. */
export function tinyMp4(durationSeconds: number): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.from('isom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2mp41', 'latin1'),
  );
  return Buffer.concat([ftyp, box('moov', movieHeader(durationSeconds)), box('mdat')]);
}
