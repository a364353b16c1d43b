/**
 * Measures uploaded audio: which container it is and how long it lasts. The measured duration is
 * the billing basis of transcription (per minute), so it comes from the bytes sent (`SentAudio`:
 * what the file holds, whatever its headers state), never from the client or the upstream.
 *
 * The container is recognised from the content alone. The declared content type is NOT used to
 * choose a parser: given a type, music-metadata forces that parser, which finds "MPEG frames" in
 * random bytes and AAC in an AIFF file (measured, music-metadata 12.1). It only appears in the
 * error message.
 *
 * Accepted: MP3 (and MPEG layers I/II as `mpga`), AAC in ADTS, WAV, Ogg (Vorbis, Opus, FLAC…),
 * FLAC, WebM, and MPEG-4 (`m4a` without video, `mp4` with video), each with an audio track and a
 * positive duration. Anything else (images, text, empty or random bytes, AIFF, WMA, Matroska…)
 * throws `NotAudioError`, which the api answers with 422.
 *
 * music-metadata recognises the container and reads its headers (sample rate, channels, the
 * duration the file states); the duration billed is `SentAudio`'s, which never trusts a stated
 * size or duration to be less than the bytes hold. An MP3 needs at least 4 frames (about 0.1 s)
 * to be recognised.
 */
import { type IFormat, parseBuffer } from 'music-metadata';
import type { AudioFormat } from './audio-format.ts';
import { SentAudio } from './sent-audio.ts';

export type { AudioFormat } from './audio-format.ts';

export interface AudioProbe {
  format: AudioFormat;
  /** Seconds of what was sent, > 0: the billing basis of transcription. */
  durationSeconds: number;
  /** The canonical content type of the detected format (what to send upstream). */
  contentType: string;
}

/** Why bytes were refused. */
export type NotAudioReason = 'unrecognized' | 'unsupported_format' | 'no_audio_track' | 'no_duration';

/** Formats named in the messages, in the order users are most likely to look for. */
export const SUPPORTED_AUDIO_FORMATS: readonly AudioFormat[] = [
  'mp3',
  'wav',
  'm4a',
  'mp4',
  'ogg',
  'webm',
  'flac',
  'aac',
  'mpga',
];

/** The bytes are not a supported audio file with a measurable duration (the api answers 422). */
export class NotAudioError extends Error {
  readonly reason: NotAudioReason;

  constructor(reason: NotAudioReason, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'NotAudioError';
    this.reason = reason;
  }
}

const CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  mpga: 'audio/mpeg',
  aac: 'audio/aac',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  webm: 'audio/webm',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
};

/** ISO base media file format (MP4, M4A, MOV with a brand): an `ftyp` box first. */
function isIsoBmff(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && new TextDecoder('latin1').decode(bytes.subarray(4, 8)) === 'ftyp';
}

function formatOf(bytes: Uint8Array, format: IFormat): AudioFormat | undefined {
  const container = format.container ?? '';
  if (container === 'MPEG') return format.codec?.endsWith('Layer 3') === true ? 'mp3' : 'mpga';
  if (container.startsWith('ADTS/')) return 'aac';
  if (container === 'WAVE') return 'wav';
  if (container === 'Ogg') return 'ogg';
  if (container === 'FLAC') return 'flac';
  if (container === 'EBML/webm') return 'webm';
  if (container !== '' && isIsoBmff(bytes)) return format.hasVideo === true ? 'mp4' : 'm4a';
  return undefined;
}

function declared(declaredContentType: string | undefined): string {
  return declaredContentType === undefined ? '' : ` (declared as ${declaredContentType})`;
}

async function parse(bytes: Uint8Array, declaredContentType: string | undefined): Promise<IFormat> {
  try {
    const metadata = await parseBuffer(bytes, undefined, { duration: true, skipCovers: true });
    return metadata.format;
  } catch (error) {
    throw new NotAudioError(
      'unrecognized',
      `The file is not a recognised audio file${declared(declaredContentType)}.`,
      { cause: error },
    );
  }
}

/**
 * Recognises and measures audio. Resolves with the format, the duration in seconds and the
 * canonical content type; rejects with `NotAudioError` for anything that is not supported audio
 * with a positive, finite duration.
 */
export async function probeAudio(bytes: Uint8Array, declaredContentType?: string): Promise<AudioProbe> {
  if (bytes.length === 0) throw new NotAudioError('unrecognized', 'The file is empty.');
  const sent = new SentAudio();
  sent.push(bytes);
  return checkAudioFormat(bytes, await parse(bytes, declaredContentType), sent, declaredContentType);
}

/**
 * The verdict on a parsed file: its supported format, audio track and positive duration, or
 * `NotAudioError`. `head` is the file's first bytes (at least 8), for the MP4 family's `ftyp` box;
 * `sent` has seen every byte of it.
 */
export function checkAudioFormat(
  head: Uint8Array,
  format: IFormat,
  sent: SentAudio,
  declaredContentType?: string,
): AudioProbe {
  const detected = formatOf(head, format);
  if (detected === undefined) {
    const kind = format.container === undefined ? 'an unknown format' : `the format ${format.container}`;
    throw new NotAudioError(
      'unsupported_format',
      `The file is in ${kind}${declared(declaredContentType)}, which is not supported; use one of ${SUPPORTED_AUDIO_FORMATS.join(', ')}.`,
    );
  }
  if (format.hasAudio !== true) throw new NotAudioError('no_audio_track', 'The file has no audio track.');
  const measured = sent.seconds(detected, format);
  if ('problem' in measured) throw new NotAudioError('unsupported_format', measured.problem);
  const duration = measured.seconds;
  if (!Number.isFinite(duration) || duration <= 0) {
    throw new NotAudioError('no_duration', 'The duration of the audio could not be measured.');
  }
  const contentType =
    detected === 'webm' && format.hasVideo === true ? 'video/webm' : CONTENT_TYPES[detected];
  return { format: detected, durationSeconds: duration, contentType };
}
