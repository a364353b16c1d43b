/**
 * The demo provider's sound effects (the `demo/sound` model): an offline, deterministic SIMULATOR
 * of text to sound, shaped like ElevenLabs' sound generation. The answer is a real MP3 (MPEG-1
 * Layer III, 44.1 kHz mono, 128 kbps CBR: ElevenLabs' default `mp3_44100_128`) of silence lasting
 * the requested `duration_seconds` (0.5 to 30, as ElevenLabs takes), else
 * DEMO_SOUND_DEFAULT_SECONDS, to the nearest 26 ms frame. The prompt does not change the audio.
 */
import { mp3FrameCount, mp3OfFrames, mp3Seconds } from '../../../media/builders/mp3.ts';
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

/** A generated sound: MP3 bytes (`audio/mpeg`) and their exact duration. */
export interface DemoSound {
  readonly audio: Uint8Array;
  readonly seconds: number;
}

/** Seconds the demo produces for a request (before rounding to whole MP3 frames). */
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

/** The sound for the request. */
function generate(request: DemoSoundRequest): DemoSound {
  const frames = mp3FrameCount(demoSoundSeconds(request));
  return { audio: mp3OfFrames(frames), seconds: mp3Seconds(frames) };
}

/** The demo simulator's sound capability. */
export const demoSound = { generate };
