/**
 * OpenAI media (`https://api.openai.com/v1`, Bearer key): images (GPT image models, DALL·E 3/2),
 * text-to-speech (gpt-4o-mini-tts, tts-1, tts-1-hd), speech-to-text (whisper-1,
 * gpt-4o(-mini)-transcribe) and video (Sora 2, Sora 2 Pro). Errors are OpenAI's
 * `{error: {message, type, param, code}}` bodies, read by the chat adapter's own functions.
 */
import type { MediaProviderAdapter } from '../../media-types.ts';
import { errorMessage, isCredentialRejection } from '../../openai-compatible/error-message.ts';
import { openaiImageAdapter } from './images.ts';
import { openaiSpeechAdapter } from './speech.ts';
import { openaiTranscriptionAdapter } from './transcription.ts';
import { openaiVideoAdapter } from './video.ts';

/** The OpenAI media adapter: every media capability. */
export const openaiMediaAdapter: MediaProviderAdapter = {
  images: openaiImageAdapter,
  speech: openaiSpeechAdapter,
  transcription: openaiTranscriptionAdapter,
  video: openaiVideoAdapter,
  errorMessage,
  isCredentialRejection,
};
