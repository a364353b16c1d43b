import { describe, expect, it } from 'vitest';
import { probeAudio } from '../../../../../../shared/src/file-formats/audio-probe.ts';
import { wavOfSeconds } from '../../../../../../shared/src/file-formats/builders/wav.ts';
import { demoMedia, demoTranscription } from '../../../../../../shared/src/providers/demo/media/index.ts';
import type { TranscriptionRequest } from '../../../../../../shared/src/providers/media-types.ts';

describe('demo transcription (simulator)', () => {
  it('reports the given duration, the request language and a labelled text', () => {
    const result = demoTranscription.transcribe(12.34, { language: 'fa' });
    expect(result.text).toBe('Demo transcription of 12.3 seconds of audio.');
    expect(result.duration).toBe(12.34);
    expect(result.language).toBe('fa');
    expect(demoTranscription.transcribe(3).language).toBe('en');
    expect(demoTranscription.transcribe(3, { language: '' }).language).toBe('en');
  });

  it('spreads the words over the duration, in order, without overlap', () => {
    const { words, duration } = demoTranscription.transcribe(7);
    expect(words.map((word) => word.word)).toEqual([
      'Demo',
      'transcription',
      'of',
      '7.0',
      'seconds',
      'of',
      'audio',
    ]);
    expect(words[0]?.start).toBe(0);
    expect(words.at(-1)?.end).toBe(duration);
    for (let i = 0; i < words.length; i += 1) {
      const word = words[i];
      expect(word?.end).toBeGreaterThan(word?.start ?? Number.POSITIVE_INFINITY);
      if (i > 0) expect(word?.start).toBe(words[i - 1]?.end);
    }
  });

  it('takes the duration measured from an uploaded file', async () => {
    const { durationSeconds } = await probeAudio(wavOfSeconds(2.5), 'audio/wav');
    const request: TranscriptionRequest = {
      audio: { fileName: 'a.wav', contentType: 'audio/wav', data: new Uint8Array() },
    };
    const result = demoMedia.transcription.transcribe(durationSeconds, request);
    expect(result.duration).toBe(durationSeconds);
    expect(result.text).toBe('Demo transcription of 2.5 seconds of audio.');
  });

  it('handles zero and refuses impossible durations', () => {
    expect(demoTranscription.transcribe(0).words.every((word) => word.start === 0 && word.end === 0)).toBe(
      true,
    );
    expect(() => demoTranscription.transcribe(-1)).toThrow(RangeError);
    expect(() => demoTranscription.transcribe(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
