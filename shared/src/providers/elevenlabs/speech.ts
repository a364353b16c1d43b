/**
 * ElevenLabs text to speech, per https://elevenlabs.io/docs/api-reference/text-to-speech/convert:
 * `POST {base}/v1/text-to-speech/{voice_id}?output_format=mp3_44100_128` with
 * `{text, model_id, voice_settings?: {speed}}`; the answer is the audio bytes (`audio/mpeg`).
 *
 * Decisions: `voice` is an ElevenLabs voice id (20 letters and digits, e.g.
 * `21m00Tcm4TlvDq8ikWAM`); a voice name such as `alloy` is refused here with a clear message
 * rather than sent to be answered 404 `voice_not_found`. `speed` goes to `voice_settings.speed`,
 * whose documented range is 0.7 to 1.2 (1.0 is the voice's normal pace): values outside it are
 * refused, never clamped. ElevenLabs has no free-text `instructions` (delivery is steered by the
 * voice and, for Eleven v3, by audio tags inside the text), so `instructions` is refused.
 * `mp3_44100_128` is available on every plan (192 kbps needs Creator or above).
 */
import type { UpstreamTarget } from '../chat-types.ts';
import { UnsupportedFeatureError } from '../chat-types.ts';
import type { MediaHttpRequest, SpeechAdapter, SpeechRequest } from '../media-types.ts';
import { elevenlabsHeaders, elevenlabsUrl } from './api.ts';

export const ELEVENLABS_OUTPUT_FORMAT = 'mp3_44100_128';
export const ELEVENLABS_MIN_SPEED = 0.7;
export const ELEVENLABS_MAX_SPEED = 1.2;

const VOICE_ID = /^[A-Za-z0-9]{20}$/;

function checkSpeechRequest(request: SpeechRequest): void {
  if (request.instructions !== undefined && request.instructions !== '') {
    throw new UnsupportedFeatureError(
      'instructions',
      'ElevenLabs takes no instructions; choose the voice (and, with Eleven v3, audio tags in the text) instead.',
    );
  }
  if (!VOICE_ID.test(request.voice)) {
    throw new UnsupportedFeatureError(
      'voice',
      'ElevenLabs models need an ElevenLabs voice id (20 letters and digits, e.g. 21m00Tcm4TlvDq8ikWAM), not a voice name.',
    );
  }
  const speed = request.speed;
  if (speed !== undefined && !(speed >= ELEVENLABS_MIN_SPEED && speed <= ELEVENLABS_MAX_SPEED)) {
    throw new UnsupportedFeatureError(
      'speed',
      `ElevenLabs speed must be from ${ELEVENLABS_MIN_SPEED} to ${ELEVENLABS_MAX_SPEED}; got ${speed}.`,
    );
  }
}

/** The JSON body of a text-to-speech request. */
export function toSpeechBody(request: SpeechRequest, nativeModel: string): Record<string, unknown> {
  checkSpeechRequest(request);
  return {
    text: request.input,
    model_id: nativeModel,
    ...(request.speed === undefined ? {} : { voice_settings: { speed: request.speed } }),
  };
}

export const elevenlabsSpeech: SpeechAdapter = {
  request(request: SpeechRequest, target: UpstreamTarget): MediaHttpRequest {
    const body = JSON.stringify(toSpeechBody(request, target.nativeModel));
    const path = `/text-to-speech/${encodeURIComponent(request.voice)}?output_format=${ELEVENLABS_OUTPUT_FORMAT}`;
    return {
      method: 'POST',
      url: elevenlabsUrl(target, path),
      headers: elevenlabsHeaders(target.apiKey, 'audio/mpeg', true),
      body,
    };
  },
};
