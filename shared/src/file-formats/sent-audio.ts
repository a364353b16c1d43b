/**
 * The duration of an upload as sent, the billing basis of a transcription: measured from the bytes
 * that came, never from what the file states about itself (a WAV's data size, an MP3's Xing frame
 * count, a FLAC's sample count, an MP4's duration box), since a file can state less than it holds
 * and every byte goes upstream. Never less than what was sent:
 *
 * - WAV: every byte after the `data` header at the format's byte rate (`WavDataMeter`);
 * - MP3 and MPEG layers I/II: the frames a decoder plays (`Mp3FrameMeter`), and at least the bytes
 *   after the ID3v2 tag at the format's highest bit rate (320 kbps for layer III, 448 for layers
 *   I/II), so bytes between frames count too;
 * - AAC in ADTS: its frames (`AdtsFrameMeter`), and at least the bytes at the highest AAC bit rate
 *   of the frames' sample rate and channels;
 * - Opus in Ogg or WebM: the packets a decoder plays (`OggOpusMeter`, `WebmOpusMeter`), never the
 *   granule a page states nor a segment's `Duration`;
 * - other Ogg, FLAC, WebM and MP4 without video: the duration their headers state, and at least the
 *   bytes at the 16-bit PCM rate of their sample rate and channels (the most a lossy codec spends,
 *   and a lossless one's raw size). A file with video (MP4, WebM) is measured by its stated
 *   duration alone: most of its bytes are pictures.
 */
import type { IFormat } from 'music-metadata';
import { AdtsFrameMeter } from './adts-frames.ts';
import type { AudioFormat } from './audio-format.ts';
import { Mp3FrameMeter } from './mp3-frames.ts';
import { OggOpusMeter } from './ogg-opus.ts';
import { WavDataMeter } from './wav-data.ts';
import { WebmOpusMeter } from './webm-opus.ts';

/** The highest bit rate of MPEG audio, in bytes a second: layer III (MPEG-1, 320 kbps), layers I/II (448). */
const MAX_MPEG_BYTES_PER_SECOND = { mp3: 40_000, mpga: 56_000 } as const;
/** Bytes of the start that decide which meters run. */
const SNIFF_BYTES = 4;

/** The meters a file's first bytes call for. */
interface Meters {
  readonly wav?: WavDataMeter;
  readonly mp3?: Mp3FrameMeter;
  readonly adts?: AdtsFrameMeter;
  readonly ogg?: OggOpusMeter;
  readonly webm?: WebmOpusMeter;
}

/** Observes an upload's bytes as they pass (`push` each chunk in order), then measures it. */
export class SentAudio {
  #bytes = 0;
  #start: number[] = [];
  #meters: Meters | undefined;

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.length;
    if (this.#meters !== undefined) {
      feed(this.#meters, chunk);
      return;
    }
    const take = Math.min(SNIFF_BYTES - this.#start.length, chunk.length);
    for (let i = 0; i < take; i += 1) this.#start.push(chunk[i] as number);
    if (this.#start.length < SNIFF_BYTES) return;
    this.#meters = metersFor(this.#start);
    feed(this.#meters, Uint8Array.from(this.#start));
    feed(this.#meters, chunk.subarray(take));
  }

  /**
   * The seconds of what was sent of a file music-metadata recognised as `format` (`stated`: what it
   * read of its headers), or why it cannot be measured.
   */
  seconds(format: AudioFormat, stated: IFormat): { readonly seconds: number } | { readonly problem: string } {
    const meters = this.#meters ?? metersFor(this.#start);
    switch (format) {
      case 'wav':
        return meters.wav?.result() ?? { problem: 'The file is not a RIFF/WAVE file.' };
      case 'mp3':
      case 'mpga': {
        const frames = meters.mp3?.seconds() ?? 0;
        const untagged = this.#bytes - (meters.mp3?.tagBytes() ?? 0);
        return { seconds: Math.max(frames, untagged / MAX_MPEG_BYTES_PER_SECOND[format]) };
      }
      case 'aac': {
        const rate = meters.adts?.maxBytesPerSecond() ?? 0;
        return { seconds: Math.max(meters.adts?.seconds() ?? 0, rate > 0 ? this.#bytes / rate : 0) };
      }
      case 'ogg':
        if (meters.ogg?.hasOpus() === true) return { seconds: meters.ogg.seconds() };
        return { seconds: this.#statedOrFloor(stated) };
      case 'webm':
        if (meters.webm?.hasOpus() === true) return { seconds: meters.webm.seconds() };
        return { seconds: this.#statedOrFloor(stated) };
      default:
        return { seconds: this.#statedOrFloor(stated) };
    }
  }

  /**
   * The stated duration, and at least the bytes at the 16-bit PCM rate of `stated` (without video);
   * 0 (not measurable) when the file states none: the floor alone is no measure of it.
   */
  #statedOrFloor(stated: IFormat): number {
    const { sampleRate, numberOfChannels } = stated;
    const duration = stated.duration ?? 0;
    const floorless = stated.hasVideo === true || sampleRate === undefined || numberOfChannels === undefined;
    if (duration <= 0 || floorless) return duration;
    const bytesPerSample = Math.max(stated.bitsPerSample ?? 16, 16) / 8;
    const perSecond = sampleRate * numberOfChannels * bytesPerSample;
    return perSecond > 0 ? Math.max(duration, this.#bytes / perSecond) : duration;
  }
}

/**
 * WAV by its RIFF start, Ogg by its capture pattern, WebM by the EBML magic; MPEG audio or ADTS by a frame sync (ADTS's
 * layer bits are 00), both after an ID3v2 tag; the rest by its headers.
 */
function metersFor(start: readonly number[]): Meters {
  const tag = String.fromCharCode(...start);
  if (tag === 'RIFF') return { wav: new WavDataMeter() };
  if (tag === 'OggS') return { ogg: new OggOpusMeter() };
  if (tag === '\x1a\x45\xdf\xa3') return { webm: new WebmOpusMeter() };
  if (String.fromCharCode(...start.slice(0, 3)) === 'ID3')
    return { mp3: new Mp3FrameMeter(), adts: new AdtsFrameMeter() };
  if (start[0] !== 0xff) return {};
  return ((start[1] ?? 0) & 0x06) === 0 ? { adts: new AdtsFrameMeter() } : { mp3: new Mp3FrameMeter() };
}

function feed(meters: Meters, chunk: Uint8Array): void {
  if (chunk.length === 0) return;
  meters.wav?.push(chunk);
  meters.mp3?.push(chunk);
  meters.adts?.push(chunk);
  meters.ogg?.push(chunk);
  meters.webm?.push(chunk);
}
