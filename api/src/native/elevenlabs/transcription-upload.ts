/**
 * A speech-to-text upload as the gateway bills it, read from the multipart body as sent (nothing
 * is re-encoded): the billable options it sets that have no catalogue price, and the seconds of
 * its `file` measured from the bytes (the longer of these and the answer's `audio_duration_secs`
 * is billed). Audio files are measured by the audio they hold, whatever their headers state
 * (`probeAudio`, as `/v1/audio/transcriptions` does), raw PCM (`file_format=pcm_s16le_16`: 16-bit
 * mono at 16 kHz) by its byte rate.
 */
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { NotAudioError, probeAudio } from '../../../../shared/src/file-formats/audio-probe.ts';
import {
  boundaryOf,
  type MultipartPart,
  multipartParts,
  partNamed,
  partText,
} from '../../../../shared/src/native/elevenlabs/multipart.ts';
import { transcriptionUnpriced } from '../../../../shared/src/native/elevenlabs/usage.ts';

/** Bytes a second of `pcm_s16le_16` audio: 16,000 samples of 2 bytes. */
const PCM_S16LE_16_BYTES_PER_SECOND = 32_000;
/** The most channels ElevenLabs transcribes with `use_multi_channel` (each billed in full). */
const MAX_TRANSCRIBED_CHANNELS = 5;
/** Values of a form field that leave a boolean option off. */
const OFF = new Set(['', 'false', '0', 'no', 'off']);

/** What a speech-to-text upload asks for and how long its audio lasts. */
export interface TranscriptionUpload {
  /** Billable options without a catalogue price (`transcriptionUnpriced`), each named once. */
  readonly unpriced: readonly string[];
  /** Seconds of the uploaded file. */
  readonly seconds: number;
  /** Channels its hold covers: up to MAX_TRANSCRIBED_CHANNELS with `use_multi_channel`, else 1. */
  readonly heldChannels: number;
}

/** The parts of a speech-to-text body; 400 when it is not multipart with the header's boundary. */
export function uploadParts(body: Uint8Array, contentType: string | undefined): MultipartPart[] {
  return multipartParts(body, boundaryOf(contentType));
}

/**
 * Reads and measures an upload. 400 when it has no `file` (a `source_url` or `cloud_storage_url`
 * cannot be measured, so it cannot be held for or billed) or the file is not audio the gateway
 * can measure.
 */
export async function measureUpload(
  body: Uint8Array,
  parts: readonly MultipartPart[],
): Promise<TranscriptionUpload> {
  const texts = parts.filter((part) => part.name !== undefined && part.name !== 'file');
  const unpriced = texts.flatMap((part) =>
    transcriptionUnpriced({ [part.name ?? '']: partText(body, part) }),
  );
  const multiChannel = texts.some(
    (part) => part.name === 'use_multi_channel' && !OFF.has(partText(body, part).trim().toLowerCase()),
  );
  const file = partNamed(parts, 'file');
  if (file === undefined) {
    throw errors.invalidRequest(
      'Upload the audio as the `file` field: the gateway bills a transcription by the duration it measures, which it cannot do for a `source_url` or `cloud_storage_url`.',
    );
  }
  const format = partNamed(parts, 'file_format');
  const bytes = body.subarray(file.start, file.end);
  if (bytes.length === 0) throw errors.invalidRequest('The uploaded `file` is empty.');
  const pcm = format !== undefined && partText(body, format).trim() === 'pcm_s16le_16';
  return {
    unpriced: [...new Set(unpriced.map((part) => part.name))],
    seconds: pcm ? bytes.length / PCM_S16LE_16_BYTES_PER_SECOND : await measuredSeconds(bytes),
    heldChannels: multiChannel ? MAX_TRANSCRIBED_CHANNELS : 1,
  };
}

async function measuredSeconds(bytes: Uint8Array): Promise<number> {
  try {
    return (await probeAudio(bytes)).durationSeconds;
  } catch (err) {
    if (!(err instanceof NotAudioError)) throw err;
    throw errors.invalidRequest(
      `${err.message} The gateway bills a transcription by the duration it measures.`,
    );
  }
}
