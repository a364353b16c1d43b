import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../../../../shared/src/catalogue/load-catalogue.ts';
import { audioMeterFor } from '../../../../../../shared/src/native/elevenlabs/audio-duration.ts';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import {
  DEMO_SOUND_DEFAULT_SECONDS,
  demoMedia,
  demoSound,
  demoSoundSeconds,
} from '../../../../../../shared/src/providers/demo/media/index.ts';

describe('demo sound (simulator)', () => {
  it('makes an MP3 lasting duration_seconds, to the nearest frame, as players and the gateway measure it', async () => {
    for (const duration_seconds of [0.5, 2, 12.3, 30]) {
      const { audio, seconds } = demoSound.generate({ text: 'a door creaks', duration_seconds });
      expect(Math.abs(seconds - duration_seconds)).toBeLessThanOrEqual(1152 / 44100 / 2);
      const metadata = await parseBuffer(audio, 'audio/mpeg', { duration: true });
      expect(metadata.format.codec).toMatch(/MPEG 1 Layer 3/i);
      expect(metadata.format.sampleRate).toBe(44100);
      const meter = audioMeterFor('mp3_44100_128');
      meter?.push(audio);
      expect(meter?.seconds()).toBeCloseTo(seconds, 9);
    }
  });

  it('lasts the default when the request fixes no duration, and is deterministic', () => {
    expect(demoSoundSeconds({ text: 'rain' })).toBe(DEMO_SOUND_DEFAULT_SECONDS);
    expect(demoSoundSeconds({ text: 'rain', duration_seconds: null })).toBe(DEMO_SOUND_DEFAULT_SECONDS);
    expect(demoMedia.sound.generate({ text: 'rain' })).toEqual(demoSound.generate({ text: 'thunder' }));
  });

  it('refuses an empty text and durations outside 0.5 to 30 seconds', () => {
    expect(() => demoSound.generate({ text: '  ' })).toThrow(UnsupportedFeatureError);
    for (const duration_seconds of [0, 0.49, 30.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => demoSound.generate({ text: 'boom', duration_seconds })).toThrow(UnsupportedFeatureError);
    }
  });

  it('is the demo sound model of the catalogue, priced per second', () => {
    const model = loadCatalogue().get('demo/sound');
    expect(model).toMatchObject({ type: 'sound', enabled: true, pricing: { unit: 'second' } });
    expect(model?.routes).toEqual([{ provider: 'demo', native_id: 'demo-sound' }]);
  });
});
