/**
 * A strict little PNG reader for tests: checks the signature and every chunk's CRC-32, reads
 * IHDR, inflates the concatenated IDAT data and checks its length against the header. Supports
 * what the media builders write (8-bit RGB or RGBA, no interlace).
 */
import { crc32, inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  colourType: number;
  /** Chunk types in file order. */
  chunks: string[];
  /** The inflated scanlines: height × (1 + width × channels) bytes. */
  scanlines: Uint8Array;
  /** RGB(A) of the pixel at (x, y), assuming filter type 0 rows. */
  pixel(x: number, y: number): number[];
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function decodePng(bytes: Uint8Array): DecodedPng {
  if (!SIGNATURE.every((byte, i) => bytes[i] === byte)) throw new Error('Not a PNG signature.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: string[] = [];
  const idat: Uint8Array[] = [];
  let header: Uint8Array | undefined;
  let at = 8;
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = new TextDecoder('latin1').decode(bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length)) {
      throw new Error(`Bad CRC in chunk ${type}.`);
    }
    chunks.push(type);
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  if (header === undefined) throw new Error('No IHDR.');
  const ihdr = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const width = ihdr.getUint32(0);
  const height = ihdr.getUint32(4);
  const colourType = ihdr.getUint8(9);
  const channels = colourType === 6 ? 4 : 3;
  const scanlines = new Uint8Array(inflateSync(Buffer.concat(idat)));
  const stride = 1 + width * channels;
  if (scanlines.length !== height * stride) throw new Error(`IDAT inflates to ${scanlines.length} bytes.`);
  const pixel = (x: number, y: number) =>
    Array.from(scanlines.subarray(y * stride + 1 + x * channels, y * stride + 1 + (x + 1) * channels));
  return { width, height, colourType, chunks, scanlines, pixel };
}
