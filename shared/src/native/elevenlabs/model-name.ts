/**
 * Model name mapping of the ElevenLabs endpoints the gateway serves natively, whose model is
 * `model_id`: optional in the JSON bodies of text to speech (default `eleven_multilingual_v2`,
 * https://elevenlabs.io/docs/api-reference/text-to-speech/convert) and sound generation (default
 * `eleven_text_to_sound_v2`, https://elevenlabs.io/docs/api-reference/text-to-sound-effects/convert),
 * required in the multipart body of speech to text
 * (https://elevenlabs.io/docs/api-reference/speech-to-text/convert).
 */
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { type JsonModelField, type MappedRequest, mapJsonModel } from '../map-json-model.ts';
import { resolveNativeModel } from '../resolve-native-model.ts';
import { boundaryOf, multipartParts, partNamed, partText, withPartText } from './multipart.ts';

export const ELEVENLABS_TTS_MODEL_FIELD: JsonModelField = {
  provider: 'elevenlabs',
  types: ['tts'],
  key: 'model_id',
  defaultModel: 'eleven_multilingual_v2',
};

export const ELEVENLABS_SOUND_MODEL_FIELD: JsonModelField = {
  provider: 'elevenlabs',
  types: ['sound'],
  key: 'model_id',
  defaultModel: 'eleven_text_to_sound_v2',
};

/** The catalogue model a text-to-speech body names (or the default), and its body per route. */
export function mapSpeechModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, ELEVENLABS_TTS_MODEL_FIELD);
}

/** The catalogue model a sound-generation body names (or the default), and its body per route. */
export function mapSoundModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, ELEVENLABS_SOUND_MODEL_FIELD);
}

/** The catalogue model of a speech-to-text upload (its `model_id` part), and its body per route. */
export function mapTranscriptionModel(
  body: Uint8Array,
  contentType: string | undefined,
  catalogue: Pick<Catalogue, 'list'>,
): MappedRequest {
  const part = partNamed(multipartParts(body, boundaryOf(contentType)), 'model_id');
  const requested = part === undefined ? undefined : partText(body, part);
  const match = resolveNativeModel(catalogue, 'elevenlabs', requested, ['stt']);
  return {
    ...match,
    requested: requested as string,
    body: (route) => (part === undefined ? body : withPartText(body, part, route.native_id)),
  };
}
