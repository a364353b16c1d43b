import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { wavOfSamples, wavOfSeconds } from '../../../../shared/src/file-formats/builders/wav.ts';

describe('wav builder', () => {
  it('writes a canonical 16-bit mono PCM header', () => {
    const wav = wavOfSamples(100, { sampleRate: 8000 });
    const view = new DataView(wav.buffer);
    const ascii = (at: number) => new TextDecoder().decode(wav.subarray(at, at + 4));
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint32(4, true)).toBe(wav.length - 8);
    expect(view.getUint16(20, true)).toBe(1); // PCM
    expect(view.getUint16(22, true)).toBe(1); // mono
    expect(view.getUint32(24, true)).toBe(8000);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(200);
    expect(wav).toHaveLength(44 + 200);
  });

  it('is measured by music-metadata at the requested duration', async () => {
    for (const [seconds, sampleRate] of [
      [2, 16000],
      [0.5, 44100],
      [3.25, 8000],
    ] as const) {
      const metadata = await parseBuffer(wavOfSeconds(seconds, { sampleRate, toneHz: 440 }), undefined, {
        duration: true,
      });
      expect(metadata.format.container).toBe('WAVE');
      expect(metadata.format.sampleRate).toBe(sampleRate);
      expect(metadata.format.numberOfChannels).toBe(1);
      expect(metadata.format.duration).toBeCloseTo(seconds, 3);
    }
  });

  it('writes a tone when asked, silence otherwise', () => {
    const silent = new DataView(wavOfSamples(32).buffer);
    const tone = new DataView(wavOfSamples(32, { toneHz: 1000 }).buffer);
    let silentEnergy = 0;
    let toneEnergy = 0;
    for (let i = 0; i < 32; i += 1) {
      silentEnergy += Math.abs(silent.getInt16(44 + i * 2, true));
      toneEnergy += Math.abs(tone.getInt16(44 + i * 2, true));
    }
    expect(silentEnergy).toBe(0);
    expect(toneEnergy).toBeGreaterThan(0);
  });

  it('rejects bad arguments', () => {
    expect(() => wavOfSeconds(-1)).toThrow(RangeError);
    expect(() => wavOfSeconds(Number.NaN)).toThrow(RangeError);
    expect(() => wavOfSamples(1.5)).toThrow(RangeError);
    expect(() => wavOfSamples(1, { sampleRate: 0 })).toThrow(RangeError);
  });
});
