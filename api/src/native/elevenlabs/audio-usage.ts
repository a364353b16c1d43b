/**
 * What an ElevenLabs audio answer is billed, observed while it is relayed (the relay's
 * `UsageAccumulator`). ElevenLabs answers audio, never a usage record: the usage comes from the
 * request (speech: its characters; a sound of fixed duration), or from the audio bytes as they
 * pass (a sound whose length the provider chose, measured by an `audioMeterFor` meter). The
 * stream has no final event: the relay charges it when the upstream body ends whole.
 */
import type { AudioDurationMeter } from '../../../../shared/src/native/elevenlabs/audio-duration.ts';
import { soundUsage } from '../../../../shared/src/native/elevenlabs/usage.ts';
import type { NativeUsage } from '../../../../shared/src/native/native-usage.ts';
import type { UsageAccumulator } from '../../../../shared/src/native/stream/usage-accumulator.ts';

/** An answer whose usage the request fixed before the first byte. */
export function fixedUsage(usage: NativeUsage): UsageAccumulator<NativeUsage> {
  return {
    push: () => undefined,
    finish: () => ({ usage, complete: true, problem: undefined }),
  };
}

/**
 * A sound effect's usage: the `duration_seconds` its body fixed, else the seconds `meter`
 * measured of the audio relayed so far. An answer with neither reports no usage (not charged,
 * logged as a problem).
 */
export function soundUsageOf(
  body: unknown,
  meter: AudioDurationMeter | undefined,
): UsageAccumulator<NativeUsage> {
  return {
    push: (chunk) => meter?.push(chunk),
    finish: () => {
      const usage = soundUsage(body, meter?.seconds());
      if (usage !== undefined) return { usage, complete: true, problem: undefined };
      return { usage: undefined, complete: false, problem: 'the sound has no measurable audio' };
    },
  };
}
