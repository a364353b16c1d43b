/**
 * The demo provider's speech: an offline, deterministic SIMULATOR. The answer is a real MP3
 * (MPEG-1 Layer III, 48 kHz mono, 32 kbps CBR: 96-byte frames of 24 ms, no
 * padding, so a CBR reader measures it exactly) of silence whose length follows the input:
 * characters / DEMO_SPEECH_CHARACTERS_PER_SECOND / speed seconds, at least 1 s, to the nearest
 * 24 ms frame. The voice and instructions are accepted and do not change the audio.
 */
import { mp3OfSeconds } from '../../../file-formats/builders/mp3.ts';
import { UnsupportedFeatureError } from '../../chat-types.ts';
import type { SpeechRequest } from '../../media-types.ts';

/** Simulated speaking rate at speed 1. */
export const DEMO_SPEECH_CHARACTERS_PER_SECOND = 15;
export const DEMO_SPEECH_MIN_SPEED = 0.25;
export const DEMO_SPEECH_MAX_SPEED = 4;

/** Seconds of audio the demo produces for a request (before rounding to whole MP3 frames). */
export function demoSpeechSeconds(request: Pick<SpeechRequest, 'input' | 'speed'>): number {
  const speed = request.speed ?? 1;
  if (!Number.isFinite(speed) || speed < DEMO_SPEECH_MIN_SPEED || speed > DEMO_SPEECH_MAX_SPEED) {
    throw new UnsupportedFeatureError(
      'speed',
      `The demo speech model supports speed ${DEMO_SPEECH_MIN_SPEED} to ${DEMO_SPEECH_MAX_SPEED}.`,
    );
  }
  const characters = Array.from(request.input).length;
  return Math.max(1, characters / DEMO_SPEECH_CHARACTERS_PER_SECOND / speed);
}

/** MP3 bytes (`audio/mpeg`) for the request. */
function synthesize(request: SpeechRequest): Uint8Array {
  return mp3OfSeconds(demoSpeechSeconds(request), { bitrateKbps: 32, sampleRate: 48000 });
}

/** The demo simulator's speech capability. */
export const demoSpeech = { synthesize };
