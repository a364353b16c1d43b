/**
 * ElevenLabs as a gateway media provider: text to speech (voice ids, MP3) and speech to text
 * (Scribe). Sound effects (`/v1/sound-generation`) are not served through these endpoints.
 */
import type { MediaProviderAdapter } from '../media-types.ts';
import { elevenlabsErrorMessage, isElevenLabsKeyRejection } from './error-message.ts';
import { elevenlabsSpeech } from './speech.ts';
import { elevenlabsTranscription } from './transcription.ts';

export { elevenlabsErrorMessage, isElevenLabsKeyRejection } from './error-message.ts';
export { elevenlabsSpeech } from './speech.ts';
export { elevenlabsTranscription } from './transcription.ts';

/** The ElevenLabs media provider adapter. */
export const elevenlabsMediaAdapter: MediaProviderAdapter = {
  speech: elevenlabsSpeech,
  transcription: elevenlabsTranscription,
  errorMessage: elevenlabsErrorMessage,
  isCredentialRejection: isElevenLabsKeyRejection,
};
