/**
 * What the fake ElevenLabs API answers, derived from the request:
 * - text to speech: REAL MP3 bytes, silent MPEG-1 Layer III frames at 128 kbps / 44.1 kHz
 *   (`FF FB 90 C4`, 417 bytes each, media-files.ts) whose count follows the text: about 15
 *   characters a second (at least half a second), divided by `voice_settings.speed`;
 * - speech to text: words deterministic from the uploaded file's size (1 word per 2,000 bytes, 1
 *   to 40), half a second apart, with `spacing` entries between them and a trailing
 *   `(laughter)` `audio_event` unless `tag_audio_events` is `false`; `language_code` is the ISO
 *   639-3 form of the one sent (default `eng`); `audio_duration_secs` is what the fake "hears":
 *   bytes / 16000 (128 kbps audio), as the OpenAI media fake. With `use_multi_channel=true` the
 *   answer is one transcript per channel (`transcripts`, each with its `channel_index`): the
 *   channels of a WAV upload's header, else one.
 * - sound generation: REAL audio of `duration_seconds`, else one second per 10 characters of the
 *   text (1 to 30 s): the silent MP3 frames above for `mp3_44100_128` (the default), or 16-bit
 *   silence for `pcm_<rate>`.
 * Errors use ElevenLabs' bodies: `{detail: {status, message}}` and FastAPI's 422
 * `{detail: [{loc, msg, type}]}`.
 */
import { asRecord, type Json, json, type MediaReply } from './media-fake-kit.ts';
import { MP3_FRAME_SECONDS, silentMp3 } from './media-files.ts';

export const SCRIBE_MODELS = ['scribe_v1', 'scribe_v1_experimental', 'scribe_v2'];
const SOUND_MODELS = ['eleven_text_to_sound_v2'];
/** Bytes a second of audio the fake "hears" in an upload (128 kbps). */
const HEARD_BYTES_PER_SECOND = 16000;
const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000];
const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'a', 'lazy', 'dog', 'again'];
const ISO_639_3: Readonly<Record<string, string>> = { en: 'eng', fr: 'fra', de: 'deu', es: 'spa', fa: 'fas' };

export function detailError(status: number, code: string, message: string): MediaReply {
  return json({ detail: { status: code, message } }, status);
}

export function validationError(loc: (string | number)[], msg: string, type: string): MediaReply {
  return json({ detail: [{ loc, msg, type }] }, 422);
}

/** Seconds of speech for a text at a speed (15 characters a second, at least 0.5 s). */
export function speechSeconds(text: string, speed = 1): number {
  return Math.max(0.5, text.length / 15) / speed;
}

/** The MP3 the fake speaks for a text. */
export function speechMp3(text: string, speed = 1): Buffer {
  return silentMp3(Math.max(1, Math.ceil(speechSeconds(text, speed) / MP3_FRAME_SECONDS)));
}

function checkSpeechBody(body: Json): MediaReply | undefined {
  if (typeof body.text !== 'string') return validationError(['body', 'text'], 'Field required', 'missing');
  if (body.text.trim() === '') return detailError(400, 'invalid_text', 'Text must not be empty.');
  if (typeof body.model_id === 'string' && body.model_id.startsWith('missing')) {
    return detailError(400, 'model_not_found', `A model with model ID ${body.model_id} does not exist.`);
  }
  const speed = asRecord(body.voice_settings)?.speed;
  if (speed !== undefined && (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)) {
    const msg =
      Number(speed) < 0.7
        ? 'Input should be greater than or equal to 0.7'
        : 'Input should be less than or equal to 1.2';
    return validationError(['body', 'voice_settings', 'speed'], msg, 'value_error');
  }
  return undefined;
}

/** `POST /v1/text-to-speech/{voice_id}?output_format=…`. */
export function speechAnswer(voiceId: string, outputFormat: string | null, body: Json): MediaReply {
  if (!/^[A-Za-z0-9]{20}$/.test(voiceId) || voiceId.startsWith('missing')) {
    return detailError(400, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
  }
  if ((outputFormat ?? 'mp3_44100_128') !== 'mp3_44100_128') {
    return detailError(
      400,
      'invalid_output_format',
      `This fake only renders mp3_44100_128, not ${outputFormat}.`,
    );
  }
  const invalid = checkSpeechBody(body);
  if (invalid) return invalid;
  const text = String(body.text);
  const speed = Number(asRecord(body.voice_settings)?.speed ?? 1);
  return {
    kind: 'bytes',
    status: 200,
    contentType: 'audio/mpeg',
    body: speechMp3(text, speed),
    headers: { 'x-character-count': String(text.length), 'request-id': `req${text.length}` },
  };
}

function wordsFor(size: number, tagEvents: boolean): Json[] {
  const count = Math.min(40, Math.max(1, 1 + Math.floor(size / 2000)));
  const words: Json[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = i * 0.5;
    if (i > 0) words.push({ text: ' ', start: start - 0.1, end: start, type: 'spacing', logprob: 0 });
    const text = WORDS[(size + i) % WORDS.length] ?? 'word';
    words.push({ text, start, end: start + 0.4, type: 'word', speaker_id: 'speaker_0', logprob: -0.01 });
  }
  if (tagEvents) {
    const start = count * 0.5;
    words.push({ text: ' ', start: start - 0.1, end: start, type: 'spacing', logprob: 0 });
    words.push({ text: '(laughter)', start, end: start + 0.3, type: 'audio_event', logprob: 0 });
  }
  return words;
}

/** Channels of a WAV file (its `fmt ` header), else 1. */
function channelsOf(bytes: Buffer): number {
  const wav = bytes.length >= 44 && bytes.toString('latin1', 0, 4) === 'RIFF';
  return wav ? Math.max(1, bytes.readUInt16LE(22)) : 1;
}

/** `POST /v1/speech-to-text` (multipart). */
export async function transcriptionAnswer(form: FormData): Promise<MediaReply> {
  const model = form.get('model_id');
  if (typeof model !== 'string') return validationError(['body', 'model_id'], 'Field required', 'missing');
  if (!SCRIBE_MODELS.includes(model)) {
    return detailError(400, 'invalid_model', `Model ${model} is not a speech to text model.`);
  }
  const file = form.get('file');
  if (!(file instanceof Blob)) {
    return detailError(400, 'invalid_parameters', 'Must provide either file or cloud_storage_url parameter.');
  }
  const given = form.get('language_code');
  const language = typeof given === 'string' && given !== '' ? (ISO_639_3[given] ?? given) : 'eng';
  const words = wordsFor(file.size, form.get('tag_audio_events') !== 'false');
  const chunk = {
    language_code: language,
    language_probability: typeof given === 'string' ? 1 : 0.98,
    text: words.map((word) => word.text).join(''),
    words,
    audio_duration_secs: Math.round((file.size / HEARD_BYTES_PER_SECOND) * 100) / 100,
  };
  if (form.get('use_multi_channel') !== 'true') return json({ ...chunk, transcription_id: `tr${file.size}` });
  const channels = channelsOf(Buffer.from(await file.arrayBuffer()));
  return json({
    transcripts: Array.from({ length: channels }, (_, channel) => ({ ...chunk, channel_index: channel })),
    transcription_id: `tr${file.size}`,
  });
}

/** Seconds of a sound effect: its `duration_seconds`, else one second per 10 characters (1 to 30). */
function soundSeconds(text: string, durationSeconds: unknown): number {
  if (typeof durationSeconds === 'number') return durationSeconds;
  return Math.min(30, Math.max(1, text.length / 10));
}

function checkSoundBody(body: Json): MediaReply | undefined {
  if (typeof body.text !== 'string') return validationError(['body', 'text'], 'Field required', 'missing');
  if (typeof body.model_id === 'string' && !SOUND_MODELS.includes(body.model_id)) {
    return detailError(400, 'model_not_found', `A model with model ID ${body.model_id} does not exist.`);
  }
  const duration = body.duration_seconds;
  if (duration !== undefined && duration !== null) {
    if (typeof duration !== 'number') {
      return validationError(['body', 'duration_seconds'], 'Input should be a valid number', 'float_type');
    }
    if (duration < 0.5 || duration > 30) {
      const msg =
        duration < 0.5
          ? 'Input should be greater than or equal to 0.5'
          : 'Input should be less than or equal to 30';
      return validationError(['body', 'duration_seconds'], msg, 'value_error');
    }
  }
  const influence = body.prompt_influence;
  if (
    influence !== undefined &&
    influence !== null &&
    (typeof influence !== 'number' || influence < 0 || influence > 1)
  ) {
    return validationError(['body', 'prompt_influence'], 'Input should be between 0 and 1', 'value_error');
  }
  return undefined;
}

/** `POST /v1/sound-generation?output_format=…`. */
export function soundAnswer(outputFormat: string | null, body: Json): MediaReply {
  const invalid = checkSoundBody(body);
  if (invalid) return invalid;
  const seconds = soundSeconds(String(body.text), body.duration_seconds);
  const format = outputFormat ?? 'mp3_44100_128';
  const pcmRate = /^pcm_(\d+)$/.exec(format)?.[1];
  if (pcmRate !== undefined && PCM_RATES.includes(Number(pcmRate))) {
    const samples = Math.round(seconds * Number(pcmRate));
    return { kind: 'bytes', status: 200, contentType: 'audio/pcm', body: Buffer.alloc(2 * samples) };
  }
  if (format !== 'mp3_44100_128') {
    return detailError(
      400,
      'invalid_output_format',
      `This fake only renders mp3_44100_128 and pcm, not ${format}.`,
    );
  }
  const frames = Math.max(1, Math.round(seconds / MP3_FRAME_SECONDS));
  return { kind: 'bytes', status: 200, contentType: 'audio/mpeg', body: silentMp3(frames) };
}
