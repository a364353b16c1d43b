/**
 * Measures the duration of generated audio from its bytes as they stream to the client, without
 * holding them back: the basis of a sound effect billed per second when the request did not fix
 * its duration. Formats by ElevenLabs' `output_format` (`AllowedOutputFormats` of the official
 * SDK): `mp3_<rate>_<kbps>` (the default `mp3_44100_128`) by walking MPEG audio frames (ISO/IEC
 * 11172-3 and 13818-3 headers: each frame holds a fixed number of samples), `pcm_<rate>` (16-bit
 * mono little-endian samples), `ulaw_8000`/`alaw_8000` (one byte a sample). Opus (and any other
 * format) cannot be measured here: such a request must fix its duration.
 *
 * MP3 details: an ID3v2 tag at the start is skipped by its stated size; a Xing/Info or VBRI frame
 * (the first frame of a VBR or LAME file, silent metadata) is not counted; bytes that are not a
 * valid frame header are skipped one by one until one is (an ID3v1 tag at the end, garbage); only
 * complete frames count, so a cut stream is measured to its last whole frame.
 */

/** Observes audio bytes chunk by chunk; `seconds()` is the duration of what it saw. */
export interface AudioDurationMeter {
  push(chunk: Uint8Array): void;
  seconds(): number;
}

const PCM = /^pcm_(\d+)$/;

/** A meter for an ElevenLabs `output_format` (default mp3_44100_128); undefined when it cannot measure it. */
export function audioMeterFor(outputFormat: string | undefined): AudioDurationMeter | undefined {
  const format = outputFormat ?? 'mp3_44100_128';
  if (format.startsWith('mp3_')) return new Mp3Meter();
  const pcm = PCM.exec(format);
  if (pcm) return new ByteRateMeter(2 * Number(pcm[1]));
  if (format === 'ulaw_8000' || format === 'alaw_8000') return new ByteRateMeter(8000);
  return undefined;
}

/** Constant bytes per second of audio. */
class ByteRateMeter implements AudioDurationMeter {
  #bytes = 0;
  readonly #bytesPerSecond: number;

  constructor(bytesPerSecond: number) {
    this.#bytesPerSecond = bytesPerSecond;
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.length;
  }

  seconds(): number {
    return this.#bytes / this.#bytesPerSecond;
  }
}

/** One MPEG audio frame header, decoded. */
export interface Mp3Frame {
  readonly length: number;
  readonly samples: number;
  readonly sampleRate: number;
  /** Bytes from the frame start to a Xing/Info tag (after the side information). */
  readonly xingOffset: number;
}

const BITRATES_V1 = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], // layer I
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // layer II
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // layer III
];
const BITRATES_V2 = [
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256], // layer I
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // layers II and III
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES: Readonly<Record<number, readonly number[]>> = {
  3: [44100, 48000, 32000], // MPEG-1
  2: [22050, 24000, 16000], // MPEG-2
  0: [11025, 12000, 8000], // MPEG-2.5
};

/** The frame a 4-byte header starts, or undefined when the bytes are not a valid header. */
export function parseMp3Header(b0: number, b1: number, b2: number, b3: number): Mp3Frame | undefined {
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3;
  const layer = 4 - ((b1 >> 1) & 3); // 1, 2 or 3; 4 is reserved
  const rates = SAMPLE_RATES[version];
  const sampleRate = rates?.[(b2 >> 2) & 3];
  const kbps = (version === 3 ? BITRATES_V1 : BITRATES_V2)[layer - 1]?.[b2 >> 4];
  if (layer === 4 || sampleRate === undefined || kbps === undefined || kbps === 0) return undefined;
  const padding = (b2 >> 1) & 1;
  const bitrate = kbps * 1000;
  const mono = b3 >> 6 === 3;
  let length: number;
  let samples: number;
  if (layer === 1) {
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
    samples = 384;
  } else if (layer === 2 || version === 3) {
    length = Math.floor((144 * bitrate) / sampleRate) + padding;
    samples = 1152;
  } else {
    length = Math.floor((72 * bitrate) / sampleRate) + padding;
    samples = 576;
  }
  const sideInfo = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  return { length, samples, sampleRate, xingOffset: 4 + sideInfo };
}

const ASCII = new TextDecoder('latin1');

/** Whether a whole first frame is a Xing/Info or VBRI metadata frame rather than audio. */
function isMetadataFrame(frame: Uint8Array, header: Mp3Frame): boolean {
  const tag = ASCII.decode(frame.subarray(header.xingOffset, header.xingOffset + 4));
  return tag === 'Xing' || tag === 'Info' || ASCII.decode(frame.subarray(36, 40)) === 'VBRI';
}

/** Walks MP3 frames across chunks, keeping at most one frame's bytes (the first, to check for a Xing tag). */
class Mp3Meter implements AudioDurationMeter {
  /** Bytes of the current header (up to 10 at the start, for an ID3v2 tag; 4 otherwise). */
  #head: number[] = [];
  #skip = 0;
  #started = false;
  /** The frame whose body is being skipped, counted once it is complete. */
  #current: Mp3Frame | undefined;
  /** The first frame, collected whole until it is known whether it is metadata. */
  #first: { header: Mp3Frame; bytes: number[] } | undefined;
  #framesSeen = 0;
  readonly #samples = new Map<number, number>();

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#first !== undefined) {
        const take = Math.min(this.#first.header.length - this.#first.bytes.length, chunk.length - i);
        for (let k = 0; k < take; k += 1) this.#first.bytes.push(chunk[i + k] as number);
        i += take;
        if (this.#first.bytes.length === this.#first.header.length) this.#endFirstFrame();
        continue;
      }
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, chunk.length - i);
        this.#skip -= step;
        i += step;
        if (this.#skip === 0) this.#endFrame();
        continue;
      }
      this.#head.push(chunk[i] as number);
      i += 1;
      this.#onHeadByte();
    }
  }

  seconds(): number {
    let seconds = 0;
    for (const [rate, samples] of this.#samples) seconds += samples / rate;
    return seconds;
  }

  #onHeadByte(): void {
    const head = this.#head;
    if (!this.#started) {
      if (head.length < 10 && (head.length > 3 || isId3Prefix(head))) return;
      this.#started = true;
      if (head.length === 10) {
        // ID3v2: "ID3", version (2), flags, size as 4 syncsafe bytes; a footer adds 10.
        const size = ((head[6] ?? 0) << 21) | ((head[7] ?? 0) << 14) | ((head[8] ?? 0) << 7) | (head[9] ?? 0);
        this.#skip = size + (((head[5] ?? 0) & 0x10) !== 0 ? 10 : 0);
        this.#head = [];
        return;
      }
    }
    while (head.length >= 4) {
      const frame = parseMp3Header(
        head[0] as number,
        head[1] as number,
        head[2] as number,
        head[3] as number,
      );
      if (frame === undefined) {
        head.shift();
        continue;
      }
      this.#head = [];
      if (this.#framesSeen === 0) this.#first = { header: frame, bytes: head.slice(0, 4) };
      else {
        this.#current = frame;
        this.#skip = frame.length - 4;
        if (this.#skip === 0) this.#endFrame();
      }
      this.#framesSeen += 1;
      return;
    }
  }

  #endFrame(): void {
    const frame = this.#current;
    this.#current = undefined;
    if (frame !== undefined) this.#count(frame);
  }

  #endFirstFrame(): void {
    const first = this.#first;
    this.#first = undefined;
    if (first !== undefined && !isMetadataFrame(Uint8Array.from(first.bytes), first.header))
      this.#count(first.header);
  }

  #count(frame: Mp3Frame): void {
    this.#samples.set(frame.sampleRate, (this.#samples.get(frame.sampleRate) ?? 0) + frame.samples);
  }
}

/** Whether the bytes so far may still begin "ID3". */
function isId3Prefix(head: readonly number[]): boolean {
  const id3 = [0x49, 0x44, 0x33];
  return head.every((byte, i) => i >= 3 || byte === id3[i]);
}
