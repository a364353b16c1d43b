/**
 * ElevenLabs speech to text (Scribe), per https://elevenlabs.io/docs/api-reference/speech-to-text/convert
 * and elevenlabs-js `SpeechToTextChunkResponseModel` / `SpeechToTextWordResponseModel`:
 * `POST {base}/v1/speech-to-text`, multipart form `{model_id, file, language_code?,
 * tag_audio_events?, timestamps_granularity?}` → `{language_code, language_probability, text,
 * words: [{text, start, end, type: 'word' | 'spacing' | 'audio_event', speaker_id?, logprob?}]}`.
 *
 * Decisions: `model_id` is the route's native model (`scribe_v1`). `tag_audio_events` is off so
 * the text holds speech only (no "(laughter)"), as a transcription client expects;
 * `timestamps_granularity` is `word`. `language` goes to `language_code` (ISO 639-1 or 639-3 are
 * both accepted); the answer's language is ElevenLabs' ISO 639-3 code (e.g. `eng`), passed on as is.
 * Only `type: 'word'` entries become words. Scribe takes no free-text `prompt`, so one is refused.
 * `audio_duration_secs`, when ElevenLabs reports it, is the transcript's duration (the gateway bills
 * the longer of it and the duration it measured); without it, null (the measured one is billed).
 */
import { z } from 'zod';
import type { UpstreamTarget } from '../chat-types.ts';
import { UnsupportedFeatureError, UpstreamProtocolError } from '../chat-types.ts';
import type {
  MediaHttpRequest,
  TranscriptionAdapter,
  TranscriptionRequest,
  TranscriptionResult,
  TranscriptionWord,
} from '../media-types.ts';
import { elevenlabsHeaders, elevenlabsUrl } from './api.ts';

const wordSchema = z.object({
  text: z.string(),
  start: z.number().nullish(),
  end: z.number().nullish(),
  type: z.string(),
});

const transcriptSchema = z.object({
  language_code: z.string(),
  language_probability: z.number().optional(),
  text: z.string(),
  words: z.array(wordSchema),
  audio_duration_secs: z.number().nonnegative().nullish(),
});

/** The multipart fields (all but the file) of a speech-to-text request. */
export function toTranscriptionFields(
  request: TranscriptionRequest,
  nativeModel: string,
): Record<string, string> {
  if (request.prompt !== undefined && request.prompt !== '') {
    throw new UnsupportedFeatureError(
      'prompt',
      'ElevenLabs Scribe takes no prompt; send the request without it.',
    );
  }
  return {
    model_id: nativeModel,
    tag_audio_events: 'false',
    timestamps_granularity: 'word',
    ...(request.language ? { language_code: request.language } : {}),
  };
}

function toWords(words: z.infer<typeof wordSchema>[]): TranscriptionWord[] {
  return words
    .filter((word) => word.type === 'word')
    .map((word) => {
      if (typeof word.start !== 'number' || typeof word.end !== 'number') {
        throw new UpstreamProtocolError('ElevenLabs transcript: a word has no timestamps');
      }
      return { word: word.text, start: word.start, end: word.end };
    });
}

/** The transcription of a speech-to-text answer. */
export function fromTranscriptionResponse(json: unknown): TranscriptionResult {
  const parsed = transcriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid body';
    throw new UpstreamProtocolError(`ElevenLabs transcript: ${where}`);
  }
  const { text, language_code, words, audio_duration_secs } = parsed.data;
  const duration = audio_duration_secs ?? null;
  return { text, language: language_code || null, duration, words: toWords(words) };
}

export const elevenlabsTranscription: TranscriptionAdapter = {
  request(request: TranscriptionRequest, target: UpstreamTarget): MediaHttpRequest {
    const fields = toTranscriptionFields(request, target.nativeModel);
    return {
      method: 'POST',
      url: elevenlabsUrl(target, '/speech-to-text'),
      headers: elevenlabsHeaders(target.apiKey, 'application/json'),
      body: {
        kind: 'multipart',
        fields,
        file: {
          field: 'file',
          fileName: request.audio.fileName,
          contentType: request.audio.contentType,
          data: request.audio.data,
        },
      },
    };
  },
  response: fromTranscriptionResponse,
};
