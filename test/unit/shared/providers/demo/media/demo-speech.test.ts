import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { probeAudio } from '../../../../../../shared/src/file-formats/audio-probe.ts';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import { demoSpeech, demoSpeechSeconds } from '../../../../../../shared/src/providers/demo/media/index.ts';

const FRAME_SECONDS = 1152 / 48000;

async function measured(input: string, speed?: number): Promise<number> {
  const mp3 = demoSpeech.synthesize({ input, voice: 'alloy', speed });
  const metadata = await parseBuffer(mp3, 'audio/mpeg', { duration: true });
  expect(metadata.format.codec).toBe('MPEG 1 Layer 3');
  return metadata.format.duration ?? 0;
}

describe('demo speech (simulator)', () => {
  it('answers a real MP3 whose duration follows the input at 15 characters a second', async () => {
    expect(demoSpeechSeconds({ input: 'x'.repeat(150) })).toBe(10);
    expect(Math.abs((await measured('x'.repeat(150))) - 10)).toBeLessThanOrEqual(FRAME_SECONDS / 2);
    expect(Math.abs((await measured('y'.repeat(600))) - 40)).toBeLessThanOrEqual(FRAME_SECONDS / 2);
    expect(await measured('y'.repeat(600))).toBeGreaterThan(await measured('y'.repeat(300)));
  });

  it('lasts at least one second', async () => {
    expect(demoSpeechSeconds({ input: '' })).toBe(1);
    expect(Math.abs((await measured('Hi')) - 1)).toBeLessThanOrEqual(FRAME_SECONDS / 2);
  });

  it('divides the duration by the speed, within 0.25 to 4', async () => {
    expect(demoSpeechSeconds({ input: 'z'.repeat(300), speed: 2 })).toBe(10);
    expect(demoSpeechSeconds({ input: 'z'.repeat(300), speed: 0.5 })).toBe(40);
    expect(Math.abs((await measured('z'.repeat(300), 2)) - 10)).toBeLessThanOrEqual(FRAME_SECONDS / 2);
    for (const speed of [0, 0.2, 4.5, Number.NaN]) {
      expect(() => demoSpeech.synthesize({ input: 'a', voice: 'v', speed })).toThrow(UnsupportedFeatureError);
    }
  });

  it('is deterministic and is accepted by the gateway probe as mp3', async () => {
    const request = { input: 'Hello from the demo.', voice: 'nova' };
    expect(demoSpeech.synthesize(request)).toEqual(demoSpeech.synthesize(request));
    const probe = await probeAudio(demoSpeech.synthesize(request));
    expect(probe).toMatchObject({ format: 'mp3', contentType: 'audio/mpeg' });
  });
});
