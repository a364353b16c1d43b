/**
 * Gateway transcription request <-> OpenAI-compatible `POST <baseUrl>/audio/transcriptions`
 * (multipart in, JSON out). Shared by OpenAI and Groq, composed from a profile (data).
 *
 * Shapes followed: openai-node `TranscriptionCreateParams` (multipart fields `file`, `model`,
 * `language` (ISO-639-1), `prompt`, `response_format` json|text|srt|verbose_json|vtt,
 * `timestamp_granularities[]` word|segment, only with verbose_json); answers `TranscriptionVerbose`
 * (`text`, `language` as a name such as "english", `duration` in seconds, `words[]`) and
 * `Transcription` (`text`, `usage` `{type: 'duration', seconds}` or `{type: 'tokens', …}`).
 * "For gpt-4o-transcribe and gpt-4o-mini-transcribe, the only supported format is json": those
 * models give no language, no words, and a duration only when `usage` is of type `duration`.
 * Groq's speech-to-text reference documents the same form and verbose_json answer for
 * whisper-large-v3 and whisper-large-v3-turbo.
 *
 * Uploads: OpenAI accepts files up to 25 MiB ("Maximum content size limit (26214400)"), the
 * gateway up to 50 MB, so larger files are refused up front. The upstream identifies the audio by
 * the file name's extension (its 400 answer lists flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav,
 * webm); a name without one of those gets the extension of its content type, when that is known.
 */
import { UnsupportedFeatureError, UpstreamProtocolError, type UpstreamTarget } from '../../chat-types.ts';
import type {
  MediaHttpRequest,
  MultipartBody,
  TranscriptionAdapter,
  TranscriptionRequest,
  TranscriptionResult,
} from '../../media-types.ts';
import { bearerHeaders, mediaUrl } from './api.ts';
import { whisperLanguageCode } from './whisper-languages.ts';
import { wireJsonTranscriptionSchema, wireVerboseTranscriptionSchema } from './wire-schemas.ts';

/** What makes one OpenAI-compatible transcription upstream differ from another. */
export interface TranscriptionProfile {
  /** Provider name for client-facing messages. */
  readonly name: string;
  /** `verbose_json` (duration, language, word timings) where the model has it, else `json`. */
  readonly responseFormat: (nativeModel: string) => 'verbose_json' | 'json';
  /** The upstream's upload limit in bytes, when it is below the gateway's own. */
  readonly maxFileBytes?: number;
}

export const openaiTranscriptionProfile: TranscriptionProfile = {
  name: 'OpenAI',
  // whisper-1 has verbose_json; the gpt-4o(-mini)-transcribe family answers json only.
  responseFormat: (nativeModel) => (nativeModel.startsWith('whisper') ? 'verbose_json' : 'json'),
  maxFileBytes: 25 * 1024 * 1024,
};

const KNOWN_EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/** The file name to upload: as given when its extension is one the upstream knows. */
export function uploadFileName(fileName: string, contentType: string): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  if (KNOWN_EXTENSIONS.includes(extension)) return fileName;
  const byType = EXTENSION_BY_TYPE[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  if (byType === undefined) return fileName;
  const base = dot > 0 ? fileName.slice(0, dot) : fileName || 'audio';
  return `${base}.${byType}`;
}

/** The multipart form for a transcription; throws UnsupportedFeatureError for a file over the upstream's limit. */
export function toTranscriptionForm(
  request: TranscriptionRequest,
  nativeModel: string,
  profile: TranscriptionProfile,
): MultipartBody {
  const { audio } = request;
  if (profile.maxFileBytes !== undefined && audio.data.byteLength > profile.maxFileBytes) {
    const megabytes = Math.floor(profile.maxFileBytes / (1024 * 1024));
    throw new UnsupportedFeatureError(
      'file',
      `${profile.name} transcribes files of at most ${megabytes} MB.`,
    );
  }
  const format = profile.responseFormat(nativeModel);
  return {
    kind: 'multipart',
    fields: {
      model: nativeModel,
      response_format: format,
      ...(format === 'verbose_json' ? { 'timestamp_granularities[]': 'word' } : {}),
      ...(request.language === undefined ? {} : { language: request.language }),
      ...(request.prompt === undefined ? {} : { prompt: request.prompt }),
    },
    file: {
      field: 'file',
      fileName: uploadFileName(audio.fileName, audio.contentType),
      contentType: audio.contentType,
      data: audio.data,
    },
  };
}

/**
 * Maps either answer format; which one it is shows in its fields (verbose_json always carries
 * `language` and `duration`, json never does).
 */
export function fromTranscriptionResponse(json: unknown, profile: TranscriptionProfile): TranscriptionResult {
  const verbose = wireVerboseTranscriptionSchema.safeParse(json);
  if (verbose.success) {
    const { text, language, duration, words } = verbose.data;
    return {
      text,
      language: whisperLanguageCode(language),
      duration,
      words: (words ?? []).map(({ word, start, end }) => ({ word, start, end })),
    };
  }
  const plain = wireJsonTranscriptionSchema.safeParse(json);
  if (!plain.success) {
    throw new UpstreamProtocolError(
      `${profile.name} transcription answer does not have the documented shape.`,
    );
  }
  const { text, usage } = plain.data;
  return { text, language: null, duration: usage?.type === 'duration' ? usage.seconds : null, words: [] };
}

/** A transcription adapter for an OpenAI-compatible upstream, composed from its profile. */
export function createTranscriptionAdapter(profile: TranscriptionProfile): TranscriptionAdapter {
  return {
    request(request: TranscriptionRequest, target: UpstreamTarget): MediaHttpRequest {
      return {
        method: 'POST',
        url: mediaUrl(target.baseUrl, '/audio/transcriptions'),
        headers: bearerHeaders(target),
        body: toTranscriptionForm(request, target.nativeModel, profile),
      };
    },
    response: (json: unknown) => fromTranscriptionResponse(json, profile),
  };
}

/** OpenAI speech-to-text: whisper-1 (verbose_json, word timings) and gpt-4o(-mini)-transcribe (json). */
export const openaiTranscriptionAdapter: TranscriptionAdapter =
  createTranscriptionAdapter(openaiTranscriptionProfile);
