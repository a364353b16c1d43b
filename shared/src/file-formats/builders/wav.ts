/**
 * A WAV (RIFF/WAVE) builder: PCM, 16-bit little-endian, mono. The 44-byte canonical header
 * (`RIFF` size `WAVE`, a 16-byte `fmt ` chunk, `data` size) followed by the samples.
 */

export interface WavOptions {
  /** Samples per second; 16000 unless given. */
  sampleRate?: number;
  /** A sine tone of this frequency (Hz) at a quarter of full scale; silence when 0 or absent. */
  toneHz?: number;
}

const HEADER_BYTES = 44;

function writeHeader(view: DataView, sampleRate: number, dataBytes: number): void {
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i += 1) view.setUint8(at + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, HEADER_BYTES - 8 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
}

/** A WAV of `sampleCount` samples. */
export function wavOfSamples(sampleCount: number, options: WavOptions = {}): Uint8Array {
  const sampleRate = options.sampleRate ?? 16000;
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate > 384000) {
    throw new RangeError(`WAV sample rate must be an integer from 1 to 384000, got ${sampleRate}.`);
  }
  if (!Number.isInteger(sampleCount) || sampleCount < 0) {
    throw new RangeError(`WAV sample count must be a non-negative integer, got ${sampleCount}.`);
  }
  const out = new Uint8Array(HEADER_BYTES + sampleCount * 2);
  const view = new DataView(out.buffer);
  writeHeader(view, sampleRate, sampleCount * 2);
  const toneHz = options.toneHz ?? 0;
  if (toneHz > 0) {
    const step = (2 * Math.PI * toneHz) / sampleRate;
    for (let i = 0; i < sampleCount; i += 1) {
      view.setInt16(HEADER_BYTES + i * 2, Math.round(Math.sin(i * step) * 8191), true);
    }
  }
  return out;
}

/** A WAV lasting `seconds` (rounded to the nearest sample). */
export function wavOfSeconds(seconds: number, options: WavOptions = {}): Uint8Array {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`WAV duration must be a non-negative number of seconds, got ${seconds}.`);
  }
  const sampleRate = options.sampleRate ?? 16000;
  return wavOfSamples(Math.round(seconds * sampleRate), options);
}
