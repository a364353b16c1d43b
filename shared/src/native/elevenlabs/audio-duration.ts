/**
 * Measures the duration of generated audio from its bytes as they stream to the client, without
 * holding them back: the basis of a sound effect billed per second when the request did not fix
 * its duration. Formats by ElevenLabs' `output_format` (`AllowedOutputFormats` of the official
 * SDK): `mp3_<rate>_<kbps>` (the default `mp3_44100_128`) by walking its MPEG audio frames
 * (`Mp3FrameMeter`), `pcm_<rate>` (16-bit mono little-endian samples), `ulaw_8000`/`alaw_8000` (one
 * byte a sample). Opus (and any other format) cannot be measured here: such a request must fix its
 * duration.
 */

import { type AudioDurationMeter, ByteRateMeter } from '../../file-formats/audio-duration-meter.ts';
import { Mp3FrameMeter } from '../../file-formats/mp3-frames.ts';

export type { AudioDurationMeter } from '../../file-formats/audio-duration-meter.ts';

const PCM = /^pcm_(\d+)$/;

/** A meter for an ElevenLabs `output_format` (default mp3_44100_128); undefined when it cannot measure it. */
export function audioMeterFor(outputFormat: string | undefined): AudioDurationMeter | undefined {
  const format = outputFormat ?? 'mp3_44100_128';
  if (format.startsWith('mp3_')) return new Mp3FrameMeter();
  const pcm = PCM.exec(format);
  if (pcm) return new ByteRateMeter(2 * Number(pcm[1]));
  if (format === 'ulaw_8000' || format === 'alaw_8000') return new ByteRateMeter(8000);
  return undefined;
}
