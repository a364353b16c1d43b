import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NotAudioError, probeAudio } from '../../../../shared/src/file-formats/audio-probe.ts';
import { probeAudioStream } from '../../../../shared/src/file-formats/audio-probe-stream.ts';
import { mp3OfSeconds } from '../../../../shared/src/file-formats/builders/mp3.ts';
import { solidPng } from '../../../../shared/src/file-formats/builders/png.ts';
import { wavOfSeconds } from '../../../../shared/src/file-formats/builders/wav.ts';

/** A stream of the bytes in small chunks, as a network upload arrives. */
function chunked(bytes: Uint8Array, size = 1_000): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(Buffer.from(bytes.subarray(i, i + size)));
  return Readable.from(chunks);
}

describe('probeAudioStream', () => {
  it('measures what probeAudio measures, from a stream', async () => {
    for (const bytes of [wavOfSeconds(2.5), mp3OfSeconds(3, { bitrateKbps: 32, sampleRate: 48_000 })]) {
      const fromStream = await probeAudioStream(chunked(bytes));
      const fromBytes = await probeAudio(bytes);
      expect(fromStream.format).toBe(fromBytes.format);
      // Without the file size a stream is measured by its frames: at most one MP3 frame (24 ms) apart.
      expect(Math.abs(fromStream.durationSeconds - fromBytes.durationSeconds)).toBeLessThanOrEqual(0.025);
    }
  });

  it('reads the source to its end even when the parser stops early (WAV header)', async () => {
    const source = chunked(wavOfSeconds(5));
    let seen = 0;
    source.on('data', (chunk: Buffer) => {
      seen += chunk.length;
    });
    await probeAudioStream(source);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toBe(wavOfSeconds(5).length);
  });

  it('refuses what is not audio', async () => {
    await expect(probeAudioStream(chunked(solidPng(8, 8, [1, 2, 3])))).rejects.toBeInstanceOf(NotAudioError);
    await expect(
      probeAudioStream(chunked(new TextEncoder().encode('just text, not audio'))),
    ).rejects.toBeInstanceOf(NotAudioError);
    await expect(probeAudioStream(Readable.from([]))).rejects.toBeInstanceOf(NotAudioError);
  });
});
