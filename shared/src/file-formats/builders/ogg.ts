/**
 * An Ogg Opus builder (RFC 7845): an `OpusHead` page, an `OpusTags` page, then pages of one second
 * each of 20 ms silent CELT packets (`F8 FF FE`, the silence frame encoders emit), each page's
 * granule position the samples (48 kHz) up to its end plus the pre-skip, the last one flagged as
 * the end of the stream. `statedSeconds` writes another duration into the last page's granule
 * (what a reader takes for the file's duration), for files that state less than they hold.
 */

const PRE_SKIP = 312;
const SAMPLES_PER_PACKET = 960; // 20 ms at 48 kHz
const PACKETS_PER_PAGE = 50;
const SILENT_PACKET = [0xf8, 0xff, 0xfe];
const SERIAL = 0x5eed;

export interface OggOpusOptions {
  /** The duration the last page's granule position states; the real one unless given. */
  statedSeconds?: number;
}

/** An Ogg Opus file of `seconds` of silence, to the nearest 20 ms packet. */
export function oggOpusOfSeconds(seconds: number, options: OggOpusOptions = {}): Uint8Array {
  const packets = Math.max(1, Math.round((seconds * 48_000) / SAMPLES_PER_PACKET));
  const head = Buffer.from([
    ...Buffer.from('OpusHead'),
    1,
    1,
    PRE_SKIP & 0xff,
    PRE_SKIP >> 8,
    0x80,
    0xbb,
    0,
    0,
    0,
    0,
    0,
  ]);
  const tags = Buffer.concat([Buffer.from('OpusTags'), u32(4), Buffer.from('test'), u32(0)]);
  const pages = [page(0, 2, 0n, [head]), page(1, 0, 0n, [tags])];
  for (let done = 0, sequence = 2; done < packets; sequence += 1) {
    const count = Math.min(PACKETS_PER_PAGE, packets - done);
    done += count;
    const last = done === packets;
    const samples =
      last && options.statedSeconds !== undefined
        ? options.statedSeconds * 48_000
        : done * SAMPLES_PER_PACKET;
    const body = Array.from({ length: count }, () => Buffer.from(SILENT_PACKET));
    pages.push(page(sequence, last ? 4 : 0, BigInt(Math.round(samples) + PRE_SKIP), body));
  }
  return new Uint8Array(Buffer.concat(pages));
}

/** One page of whole packets (each under 255 bytes: one lacing value each). */
function page(sequence: number, type: number, granule: bigint, packets: readonly Buffer[]): Buffer {
  const header = Buffer.alloc(27);
  header.write('OggS', 0, 'latin1');
  header[5] = type;
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(SERIAL, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = packets.length;
  const out = Buffer.concat([header, Buffer.from(packets.map((packet) => packet.length)), ...packets]);
  out.writeUInt32LE(crc32(out), 22);
  return out;
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
}

/** Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, over the page with its CRC field zero. */
function crc32(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}
