/**
 * The demo provider's sound effects (the `demo/sound` model), shaped like ElevenLabs' sound
 * generation: silence lasting the requested `duration_seconds` (0.5 to 30, as ElevenLabs takes),
 * else DEMO_SOUND_DEFAULT_SECONDS. The native simulator (`native/simulator/elevenlabs-simulator.ts`)
 * renders it in the `output_format` asked for; the prompt does not change the audio.
 */
import { UnsupportedFeatureError } from '../../chat-types.ts';

/** Seconds of a sound whose request fixes none (ElevenLabs then picks a length from the prompt). */
export const DEMO_SOUND_DEFAULT_SECONDS = 5;
export const DEMO_SOUND_MIN_SECONDS = 0.5;
export const DEMO_SOUND_MAX_SECONDS = 30;

/** A sound-generation request, in ElevenLabs' terms. */
export interface DemoSoundRequest {
  readonly text: string;
  /** The length asked for; absent or null: the default. */
  readonly duration_seconds?: number | null;
}

/** Seconds of sound the demo produces for a request; UnsupportedFeatureError for an empty text or a length out of range. */
export function demoSoundSeconds(request: DemoSoundRequest): number {
  if (request.text.trim() === '') {
    throw new UnsupportedFeatureError('text', 'The demo sound model needs a text describing the sound.');
  }
  const seconds = request.duration_seconds ?? DEMO_SOUND_DEFAULT_SECONDS;
  if (!Number.isFinite(seconds) || seconds < DEMO_SOUND_MIN_SECONDS || seconds > DEMO_SOUND_MAX_SECONDS) {
    throw new UnsupportedFeatureError(
      'duration_seconds',
      `The demo sound model makes ${DEMO_SOUND_MIN_SECONDS} to ${DEMO_SOUND_MAX_SECONDS} seconds of sound.`,
    );
  }
  return seconds;
}
