import { describe, expect, it } from 'vitest';
import { NotAudioError, probeAudio } from '../../../../shared/src/file-formats/audio-probe.ts';
import { mp3OfFrames, mp3OfSeconds } from '../../../../shared/src/file-formats/builders/mp3.ts';
import { demoMp4 } from '../../../../shared/src/file-formats/builders/mp4.ts';
import { patternPng } from '../../../../shared/src/file-formats/builders/png.ts';
import { randomSequence } from '../../../../shared/src/file-formats/builders/seed.ts';
import { wavOfSeconds } from '../../../../shared/src/file-formats/builders/wav.ts';

function randomBytes(length: number, seed: number): Uint8Array {
  const next = randomSequence(seed);
  return Uint8Array.from({ length }, () => Math.floor(next() * 256));
}

/** A minimal AIFF (8 kHz, 16-bit mono, silent): real audio, but not a format the gateway takes. */
function aiff(samples: number): Uint8Array {
  const out = new Uint8Array(12 + 26 + 16 + samples * 2);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => out.set(new TextEncoder().encode(text), at);
  ascii(0, 'FORM');
  view.setUint32(4, out.length - 8);
  ascii(8, 'AIFF');
  ascii(12, 'COMM');
  view.setUint32(16, 18);
  view.setUint16(20, 1); // channels
  view.setUint32(22, samples);
  view.setUint16(26, 16); // bits
  view.setUint16(28, 0x400b); // 8000 as an 80-bit extended: exponent 16383 + 12
  view.setUint32(30, 0xfa000000); // mantissa 8000 << 51
  ascii(38, 'SSND');
  view.setUint32(42, 8 + samples * 2);
  return out;
}

async function refusal(bytes: Uint8Array, declared?: string): Promise<NotAudioError> {
  const error = await probeAudio(bytes, declared).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NotAudioError);
  return error as NotAudioError;
}

describe('probeAudio', () => {
  it('measures a WAV', async () => {
    const probe = await probeAudio(wavOfSeconds(2, { toneHz: 440 }), 'audio/wav');
    expect(probe.format).toBe('wav');
    expect(probe.contentType).toBe('audio/wav');
    expect(probe.durationSeconds).toBeGreaterThan(1.95);
    expect(probe.durationSeconds).toBeLessThan(2.05);
  });

  it('measures an MP3 of N frames at N × 1152 / 44100 seconds', async () => {
    for (const frames of [2, 4, 200, 2297]) {
      const probe = await probeAudio(mp3OfFrames(frames), 'audio/mpeg');
      expect(probe.format).toBe('mp3');
      expect(probe.contentType).toBe('audio/mpeg');
      expect(probe.durationSeconds).toBeCloseTo((frames * 1152) / 44100, 2);
    }
    const long = mp3OfSeconds(90, { bitrateKbps: 32, sampleRate: 48000 });
    expect((await probeAudio(long)).durationSeconds).toBeCloseTo(90, 1);
  });

  it('recognises the container from the bytes, not from the declared type', async () => {
    expect((await probeAudio(wavOfSeconds(1), 'audio/mpeg')).format).toBe('wav');
    expect((await probeAudio(mp3OfSeconds(1), 'application/octet-stream')).format).toBe('mp3');
    expect((await probeAudio(mp3OfSeconds(1))).format).toBe('mp3');
  });

  it('refuses bytes that are not audio', async () => {
    expect((await refusal(new Uint8Array(0), 'audio/wav')).reason).toBe('unrecognized');
    const png = await refusal(patternPng(16, 16, 1), 'audio/mpeg');
    expect(png.reason).toBe('unrecognized');
    expect(png.message).toContain('audio/mpeg');
    const text = new TextEncoder().encode('This is a text file, not audio.\n'.repeat(40));
    expect((await refusal(text, 'audio/mpeg')).reason).toBe('unrecognized');
    for (const seed of [1, 2, 3]) {
      expect((await refusal(randomBytes(64_000, seed), 'audio/mpeg')).reason).toBe('unrecognized');
    }
  });

  it('refuses audio without a measurable duration, video without audio and unsupported formats', async () => {
    expect((await refusal(wavOfSeconds(0))).reason).toBe('no_duration');
    expect((await refusal(demoMp4(2), 'video/mp4')).reason).toBe('no_audio_track');
    const unsupported = await refusal(aiff(8000));
    expect(unsupported.reason).toBe('unsupported_format');
    expect(unsupported.message).toContain('AIFF');
    expect(unsupported.name).toBe('NotAudioError');
  });
});
