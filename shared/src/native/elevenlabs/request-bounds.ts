/**
 * The bounds of ElevenLabs' requests (field-bounds.ts): a speech's `text` as `/v1/audio/speech`
 * takes its `input` (1 to `MAX_SPEECH_CHARACTERS` characters, the quantity billed) and its
 * `voice_settings.speed` as `/v1`'s `speed`; a sound's `duration_seconds`, the seconds billed,
 * within what ElevenLabs makes.
 */
import { checkedText, checkNumber, NativeFieldError, type NumberRange } from '../field-bounds.ts';
import { isObject } from '../native-usage.ts';
import { MAX_SPEECH_CHARACTERS, SPEECH_SPEED } from '../request-ranges.ts';

type Body = Readonly<Record<string, unknown>>;

/** The seconds of a sound effect ElevenLabs makes (`duration_seconds`, 0.5 to 30). */
export const SOUND_SECONDS: NumberRange = { integer: false, min: 0.5, max: 30 };

/** Checks a text-to-speech body. */
export function checkSpeechBounds(body: Body): void {
  checkedText(body, 'text', MAX_SPEECH_CHARACTERS);
  const settings = body.voice_settings;
  if (settings === undefined || settings === null) return;
  if (!isObject(settings)) {
    throw new NativeFieldError(
      'voice_settings',
      'invalid_type',
      'Invalid `voice_settings`: it must be an object.',
    );
  }
  checkNumber(settings.speed, SPEECH_SPEED, 'voice_settings.speed');
}

/** Checks a sound-generation body; the seconds it fixes, when it fixes them. */
export function checkSoundBounds(body: Body): number | undefined {
  return checkNumber(body.duration_seconds, SOUND_SECONDS, 'duration_seconds');
}
