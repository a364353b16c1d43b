/**
 * The demo provider's transcription: an offline, deterministic SIMULATOR. It does not listen to
 * the audio; it is given the duration the gateway measured from the upload (`probeAudio`) and
 * answers `Demo transcription of N.N seconds of audio.`, with that duration, the request's language
 * (or `en`) and the words spread evenly over the duration (times in seconds, to the millisecond).
 */
import type { TranscriptionRequest, TranscriptionResult, TranscriptionWord } from '../../media-types.ts';

const DEFAULT_LANGUAGE = 'en';

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function spread(text: string, duration: number): TranscriptionWord[] {
  const tokens = text.split(' ').map((token) => token.replace(/[.,]$/, ''));
  const slot = duration / tokens.length;
  return tokens.map((word, i) => ({
    word,
    start: round3(i * slot),
    end: i === tokens.length - 1 ? duration : round3((i + 1) * slot),
  }));
}

/** The transcription of audio lasting `audioDurationSeconds` (as measured by the gateway). */
function transcribe(
  audioDurationSeconds: number,
  request: Pick<TranscriptionRequest, 'language' | 'prompt'> = {},
): TranscriptionResult {
  if (!Number.isFinite(audioDurationSeconds) || audioDurationSeconds < 0) {
    throw new RangeError(
      `Audio duration must be a non-negative number of seconds, got ${audioDurationSeconds}.`,
    );
  }
  const text = `Demo transcription of ${audioDurationSeconds.toFixed(1)} seconds of audio.`;
  const language = request.language?.trim() || DEFAULT_LANGUAGE;
  return { text, language, duration: audioDurationSeconds, words: spread(text, audioDurationSeconds) };
}

/** The demo simulator's transcription capability. */
export const demoTranscription = { transcribe };
