/**
 * The fake's audio routes, in OpenAI's documented wire format (Groq's transcription route is the
 * same format, so one fake serves both).
 *
 * `POST /v1/audio/speech` (JSON): `model`, `input` (1 to 4096 characters), `voice` (a built-in
 * name or `{id}`), `instructions` (refused for tts-1 / tts-1-hd, so adapter mistakes show),
 * `speed` 0.25 to 4, `response_format` mp3 (the default; other formats answer 400, a fake limit).
 * Answer: `audio/mpeg`, silent 128 kbps frames whose count follows the input length and speed
 * (see `fakeSpeechFrames`).
 *
 * `POST /v1/audio/transcriptions` (multipart): `file` required, with an extension OpenAI knows
 * (its 400 lists them) and at most 25 MiB (413 with OpenAI's "Maximum content size limit"
 * message); `response_format` json (default) | text | verbose_json, verbose_json only for
 * Whisper models; `timestamp_granularities[]` only with verbose_json. Answers are derived from
 * the file size: `duration = bytes / 16000` seconds (128 kbps audio), about 2.5 words a second.
 */
import { MP3_FRAME_SECONDS, silentMp3 } from './media-files.ts';
import type { Json } from './openai-fake-answers.ts';
import {
  bytesReply,
  errorReply,
  type FakeReply,
  invalidValue,
  jsonReply,
  missingModel,
} from './openai-media-reply.ts';

const VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'onyx',
  'nova',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
];
export const FAKE_SPEECH_CHARS_PER_SECOND = 15;

/** How many MP3 frames the fake answers for an input at a speed. */
export function fakeSpeechFrames(input: string, speed = 1): number {
  const seconds = input.length / FAKE_SPEECH_CHARS_PER_SECOND / speed;
  return Math.max(1, Math.ceil(seconds / MP3_FRAME_SECONDS));
}

function voiceError(voice: unknown): FakeReply | undefined {
  if (typeof voice === 'string' && VOICES.includes(voice)) return undefined;
  if (typeof voice === 'object' && voice !== null && typeof (voice as Json).id === 'string') return undefined;
  return invalidValue('voice', typeof voice === 'string' ? voice : JSON.stringify(voice), VOICES);
}

function speechRequestError(body: Json, model: string): FakeReply | undefined {
  const { input, speed } = body;
  if (typeof input !== 'string' || input === '') {
    return errorReply(400, "Missing required parameter: 'input'.", {
      param: 'input',
      code: 'missing_required_parameter',
    });
  }
  if (input.length > 4096) {
    return errorReply(400, "Invalid 'input': string too long. Expected a string with maximum length 4096.", {
      param: 'input',
      code: 'string_above_max_length',
    });
  }
  if (body.instructions !== undefined && model.startsWith('tts-1')) {
    return errorReply(400, `Instructions are not supported for ${model}.`, { param: 'instructions' });
  }
  if (speed !== undefined && (typeof speed !== 'number' || speed < 0.25 || speed > 4)) {
    return errorReply(400, "Invalid 'speed': must be between 0.25 and 4.0.", { param: 'speed' });
  }
  if ((body.response_format ?? 'mp3') !== 'mp3') {
    return errorReply(400, 'This fake makes mp3 only.', { param: 'response_format' });
  }
  return voiceError(body.voice);
}

export function speechAnswer(body: Json): FakeReply {
  if (typeof body.model !== 'string') {
    return errorReply(400, 'you must provide a model parameter', { param: 'model' });
  }
  const invalid = missingModel(body.model) ?? speechRequestError(body, body.model);
  if (invalid) return invalid;
  const speed = typeof body.speed === 'number' ? body.speed : 1;
  return bytesReply(silentMp3(fakeSpeechFrames(String(body.input), speed)), 'audio/mpeg');
}

const EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
const MAX_UPLOAD = 26_214_400;
const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'a', 'lazy', 'dog', 'again'];
const LANGUAGE_NAMES: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  fa: 'persian',
};

/** What the fake hears in a file of this size: the duration, the words and their timings. */
export function fakeTranscript(bytes: number): { duration: number; text: string; words: Json[] } {
  const duration = Math.round((bytes / 16000) * 100) / 100;
  const count = Math.max(1, Math.round(duration * 2.5));
  const step = duration / count;
  const words = Array.from({ length: count }, (_, i) => ({
    word: WORDS[i % WORDS.length] ?? 'word',
    start: Math.round(i * step * 100) / 100,
    end: Math.round((i + 0.8) * step * 100) / 100,
  }));
  const text = words.map((w) => w.word).join(' ');
  return { duration, text: `${text.charAt(0).toUpperCase()}${text.slice(1)}.`, words };
}

function transcriptionRequestError(form: FormData, file: File, model: string): FakeReply | undefined {
  const extension = file.name.includes('.') ? (file.name.split('.').pop() ?? '').toLowerCase() : '';
  if (!EXTENSIONS.includes(extension)) {
    return errorReply(
      400,
      `Invalid file format. Supported formats: [${EXTENSIONS.map((e) => `'${e}'`).join(', ')}]`,
    );
  }
  if (file.size > MAX_UPLOAD) {
    return errorReply(413, `Maximum content size limit (${MAX_UPLOAD}) exceeded (${file.size} bytes read)`);
  }
  const format = String(form.get('response_format') ?? 'json');
  const formats = model.includes('whisper') ? ['json', 'text', 'verbose_json'] : ['json', 'text'];
  if (!formats.includes(format)) {
    const message = `response_format '${format}' is not compatible with model '${model}'. Use one of ${formats.join(', ')}.`;
    return errorReply(400, message, { param: 'response_format', code: 'unsupported_value' });
  }
  if (form.has('timestamp_granularities[]') && format !== 'verbose_json') {
    return errorReply(400, 'timestamp_granularities requires response_format=verbose_json.', {
      param: 'timestamp_granularities',
    });
  }
  return undefined;
}

export function transcriptionAnswer(form: FormData): FakeReply {
  const file = form.get('file');
  if (!(file instanceof File)) {
    return errorReply(400, "Missing required parameter: 'file'.", {
      param: 'file',
      code: 'missing_required_parameter',
    });
  }
  const model = form.get('model');
  if (typeof model !== 'string')
    return errorReply(400, 'you must provide a model parameter', { param: 'model' });
  const invalid = missingModel(model) ?? transcriptionRequestError(form, file, model);
  if (invalid) return invalid;
  const heard = fakeTranscript(file.size);
  const format = String(form.get('response_format') ?? 'json');
  if (format === 'text') return bytesReply(Buffer.from(`${heard.text}\n`), 'text/plain; charset=utf-8');
  if (format === 'verbose_json') return jsonReply(verboseAnswer(form, heard));
  const usage = model.includes('whisper')
    ? { type: 'duration', seconds: Math.ceil(heard.duration) }
    : {
        type: 'tokens',
        input_tokens: Math.ceil(heard.duration * 10),
        output_tokens: heard.words.length,
        total_tokens: Math.ceil(heard.duration * 10) + heard.words.length,
      };
  return jsonReply({ text: heard.text, usage });
}

function verboseAnswer(form: FormData, heard: ReturnType<typeof fakeTranscript>): Json {
  const code = String(form.get('language') ?? 'en');
  const withWords = form.getAll('timestamp_granularities[]').includes('word');
  return {
    task: 'transcribe',
    language: LANGUAGE_NAMES[code] ?? 'english',
    duration: heard.duration,
    text: heard.text,
    segments: [
      {
        id: 0,
        seek: 0,
        start: 0,
        end: heard.duration,
        text: heard.text,
        tokens: [],
        temperature: 0,
        avg_logprob: -0.2,
        compression_ratio: 1,
        no_speech_prob: 0.01,
      },
    ],
    ...(withWords ? { words: heard.words } : {}),
    usage: { type: 'duration', seconds: Math.ceil(heard.duration) },
  };
}
