/**
 * Groq media (`https://api.groq.com/openai/v1`, Bearer key): speech-to-text only, through its
 * OpenAI-compatible `POST <baseUrl>/audio/transcriptions` (Groq speech-to-text guide and API
 * reference: multipart `file`, `model` whisper-large-v3 | whisper-large-v3-turbo, `language`,
 * `prompt`, `response_format` json|text|verbose_json, `timestamp_granularities[]` word|segment
 * with verbose_json; the verbose_json answer is OpenAI's, plus `x_groq`). Composed from the
 * OpenAI transcription transforms with Groq's profile: every Whisper model answers verbose_json
 * (duration, language, word timings).
 *
 * Upload limit: Groq's depends on the account tier (25 MB free, 100 MB developer), so no limit is
 * imposed here; a file over the tier's limit is answered 413 by Groq.
 */
import type { MediaProviderAdapter } from '../media-types.ts';
import { createTranscriptionAdapter, type TranscriptionProfile } from '../openai/media/transcription.ts';
import { errorMessage, isCredentialRejection } from '../openai-compatible/error-message.ts';

export const groqTranscriptionProfile: TranscriptionProfile = {
  name: 'Groq',
  responseFormat: () => 'verbose_json',
};

/** The Groq media adapter: transcription only. */
export const groqMediaAdapter: MediaProviderAdapter = {
  transcription: createTranscriptionAdapter(groqTranscriptionProfile),
  errorMessage,
  isCredentialRejection,
};
