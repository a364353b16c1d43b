/**
 * Usage of the ElevenLabs endpoints the gateway serves natively. ElevenLabs answers audio or a
 * transcript, not a usage record, so the billed quantity comes from the request or the audio:
 *
 * - text to speech (`POST /v1/text-to-speech/{voice_id}`): the characters of `text`, counted as
 *   Unicode code points (ElevenLabs bills characters of the text,
 *   https://elevenlabs.io/docs/api-reference/text-to-speech/convert).
 * - speech to text (`POST /v1/speech-to-text`): seconds of audio, the longer of the duration the
 *   gateway measured from the uploaded file (as on `/v1/audio/transcriptions`) and the
 *   `audio_duration_secs` the answer reports; times the channels with `use_multi_channel` (each
 *   channel is billed at the full duration). Options that ElevenLabs bills as surcharges
 *   (`entity_detection`, `entity_redaction`, `keyterms`, `detect_speaker_roles`,
 *   `transcript_edit`) and `webhook`
 *   (the transcript, and so its duration, arrives elsewhere) have no catalogue price: unpriced.
 * - sound generation (`POST /v1/sound-generation`): the `duration_seconds` the request fixed, or
 *   the duration measured from the audio produced (audio-duration.ts).
 */
import {
  isObject,
  type NativeCharacterUsage,
  type NativeDurationUsage,
  type UnpricedPart,
} from '../native-usage.ts';

/** The characters a text-to-speech body asks to speak. */
export function speechUsage(body: unknown): NativeCharacterUsage {
  const text = isObject(body) && typeof body.text === 'string' ? body.text : '';
  return { kind: 'characters', characters: [...text].length };
}

/** Speech-to-text form fields ElevenLabs bills beyond the duration, with the names they are refused under. */
const SURCHARGED_FIELDS: Readonly<Record<string, string>> = {
  entity_detection: 'entity_detection_surcharge',
  entity_redaction: 'entity_redaction_surcharge',
  keyterms: 'keyterms_surcharge',
  detect_speaker_roles: 'speaker_roles_surcharge',
  transcript_edit: 'transcript_edit_surcharge',
  webhook: 'webhook_transcriptions',
};

/** Values of a form field that leave it off. */
const OFF = new Set(['', 'false', '0', 'null', 'none', '[]']);

/**
 * The billable options a speech-to-text request sets that the catalogue has no price for; the
 * gateway refuses such a request before sending it. `fields`: its text form fields.
 */
export function transcriptionUnpriced(fields: Readonly<Record<string, string>>): UnpricedPart[] {
  return Object.entries(SURCHARGED_FIELDS)
    .filter(([field]) => fields[field] !== undefined && !OFF.has((fields[field] ?? '').trim().toLowerCase()))
    .map(([, name]) => ({ name, quantity: 1 }));
}

/**
 * The seconds a speech-to-text call is billed: the longer of `measuredSeconds` (from the file)
 * and the duration the answer reports, times its channels. Undefined when there is neither (a
 * `source_url` request whose answer reports no duration): there is nothing to bill it on.
 */
export function transcriptionUsage(
  measuredSeconds: number | undefined,
  responseBody: unknown,
): NativeDurationUsage | undefined {
  const transcripts =
    isObject(responseBody) && Array.isArray(responseBody.transcripts)
      ? responseBody.transcripts
      : [responseBody];
  const reported = transcripts.reduce<number>((longest, transcript) => {
    const seconds = isObject(transcript) ? transcript.audio_duration_secs : undefined;
    return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.max(longest, seconds) : longest;
  }, 0);
  const seconds = Math.max(measuredSeconds ?? 0, reported);
  if (seconds <= 0) return undefined;
  return { kind: 'seconds', seconds: seconds * channelsOf(responseBody, transcripts.length) };
}

/** Channels transcribed: one transcript each (`separate`), or the distinct `channel_index` of the words (`combined`). */
function channelsOf(responseBody: unknown, transcripts: number): number {
  if (transcripts > 1) return transcripts;
  const words = isObject(responseBody) && Array.isArray(responseBody.words) ? responseBody.words : [];
  const channels = new Set<unknown>();
  for (const word of words) {
    if (isObject(word) && typeof word.channel_index === 'number') channels.add(word.channel_index);
  }
  return Math.max(channels.size, 1);
}

/**
 * The seconds a sound-generation call is billed: the `duration_seconds` its body fixed, else
 * `measuredSeconds` of the audio produced. Undefined when there is neither.
 */
export function soundUsage(
  body: unknown,
  measuredSeconds: number | undefined,
): NativeDurationUsage | undefined {
  const fixed = isObject(body) ? body.duration_seconds : undefined;
  const seconds = typeof fixed === 'number' && fixed > 0 ? fixed : measuredSeconds;
  return seconds === undefined || seconds <= 0 ? undefined : { kind: 'seconds', seconds };
}
