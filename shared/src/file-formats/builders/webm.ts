/**
 * A WebM builder: one Opus track (mono, 48 kHz) of 20 ms silent CELT packets (`F8 FF FE`), one
 * `SimpleBlock` each, in clusters of one second. `statedSeconds` writes a segment `Duration` (what a
 * reader takes for the file's duration); without it the file has none, and with `unknownSizes` its
 * segment and clusters state an unknown size, as a browser's MediaRecorder writes them.
 */

const SILENT_PACKET = [0xf8, 0xff, 0xfe];
const PACKET_MS = 20;
const PACKETS_PER_CLUSTER = 50;

export interface WebmOptions {
  /** The segment's `Duration`, in seconds; none unless given. */
  statedSeconds?: number;
  /** Segment and clusters of unknown size (a live recording). */
  unknownSizes?: boolean;
}

/** A WebM of `seconds` of Opus silence, to the nearest 20 ms packet. */
export function webmOpusOfSeconds(seconds: number, options: WebmOptions = {}): Uint8Array {
  const packets = Math.max(1, Math.round((seconds * 1000) / PACKET_MS));
  const header = element(0x1a45dfa3, [
    element(0x4286, uint(1)),
    element(0x42f7, uint(1)),
    element(0x42f2, uint(4)),
    element(0x42f3, uint(8)),
    element(0x4282, Buffer.from('webm')),
    element(0x4287, uint(4)),
    element(0x4285, uint(2)),
  ]);
  const info = element(0x1549a966, [
    element(0x2ad7b1, uint(1_000_000)),
    element(0x4d80, Buffer.from('test')),
    element(0x5741, Buffer.from('test')),
    ...(options.statedSeconds === undefined ? [] : [element(0x4489, float(options.statedSeconds * 1000))]),
  ]);
  const opusHead = Buffer.from([...Buffer.from('OpusHead'), 1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0]);
  const tracks = element(0x1654ae6b, [
    element(0xae, [
      element(0xd7, uint(1)),
      element(0x73c5, uint(1)),
      element(0x83, uint(2)),
      element(0x86, Buffer.from('A_OPUS')),
      element(0x63a2, opusHead),
      element(0xe1, [element(0xb5, float(48_000)), element(0x9f, uint(1))]),
    ]),
  ]);
  const clusters: Buffer[] = [];
  for (let done = 0; done < packets; done += PACKETS_PER_CLUSTER) {
    const count = Math.min(PACKETS_PER_CLUSTER, packets - done);
    const blocks = Array.from({ length: count }, (_, k) => {
      const timecode = k * PACKET_MS;
      return element(0xa3, Buffer.from([0x81, timecode >> 8, timecode & 0xff, 0x80, ...SILENT_PACKET]));
    });
    clusters.push(
      element(0x1f43b675, [element(0xe7, uint(done * PACKET_MS)), ...blocks], options.unknownSizes),
    );
  }
  const segment = element(0x18538067, [info, tracks, ...clusters], options.unknownSizes);
  return new Uint8Array(Buffer.concat([header, segment]));
}

/** An EBML element: its id, its size as an 8-byte vint (or "unknown"), its payload. */
function element(id: number, payload: Buffer | readonly Buffer[], unknownSize = false): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.concat(payload as Buffer[]);
  const idBytes = Buffer.from(
    id
      .toString(16)
      .padStart(2, '0')
      .match(/../g)
      ?.map((hex) => Number.parseInt(hex, 16)) ?? [],
  );
  const size = Buffer.alloc(8);
  size.writeBigUInt64BE(unknownSize ? 0x01ffffffffffffffn : 0x0100000000000000n | BigInt(body.length));
  return Buffer.concat([idBytes, size, body]);
}

function uint(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function float(value: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeDoubleBE(value);
  return out;
}
