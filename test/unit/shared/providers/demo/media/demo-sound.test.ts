import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../../../../shared/src/catalogue/load-catalogue.ts';
import { audioMeterFor } from '../../../../../../shared/src/native/elevenlabs/audio-duration.ts';
import {
  SIMULATOR_BASE_URL,
  simulateNative,
} from '../../../../../../shared/src/native/simulator/native-simulator.ts';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import {
  DEMO_SOUND_DEFAULT_SECONDS,
  demoSoundSeconds,
} from '../../../../../../shared/src/providers/demo/media/index.ts';

describe('demo sound (simulator)', () => {
  it('is an MP3 lasting duration_seconds, to the nearest frame, as players and the gateway measure it', async () => {
    for (const duration_seconds of [0.5, 2, 12.3, 30]) {
      const answer = await simulateNative({
        url: `${SIMULATOR_BASE_URL}/v1/sound-generation`,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({ text: 'a door creaks', duration_seconds, model_id: 'demo-sound' }),
        ),
      });
      const audio = new Uint8Array(await answer.body.arrayBuffer());
      const metadata = await parseBuffer(audio, 'audio/mpeg', { duration: true });
      expect(metadata.format.codec).toMatch(/MPEG 1 Layer 3/i);
      expect(metadata.format.sampleRate).toBe(44100);
      const meter = audioMeterFor('mp3_44100_128');
      meter?.push(audio);
      expect(Math.abs((meter?.seconds() ?? 0) - duration_seconds)).toBeLessThanOrEqual(1152 / 44100 / 2);
    }
  });

  it('lasts the default when the request fixes no duration', () => {
    expect(demoSoundSeconds({ text: 'rain' })).toBe(DEMO_SOUND_DEFAULT_SECONDS);
    expect(demoSoundSeconds({ text: 'rain', duration_seconds: null })).toBe(DEMO_SOUND_DEFAULT_SECONDS);
    expect(demoSoundSeconds({ text: 'rain', duration_seconds: 2.5 })).toBe(2.5);
  });

  it('refuses an empty text and durations outside 0.5 to 30 seconds', () => {
    expect(() => demoSoundSeconds({ text: '  ' })).toThrow(UnsupportedFeatureError);
    for (const duration_seconds of [0, 0.49, 30.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => demoSoundSeconds({ text: 'boom', duration_seconds })).toThrow(UnsupportedFeatureError);
    }
  });

  it('is the demo sound model of the catalogue, priced per second', () => {
    const model = loadCatalogue().get('demo/sound');
    expect(model).toMatchObject({ type: 'sound', enabled: true, pricing: { unit: 'second' } });
    expect(model?.routes).toEqual([{ provider: 'demo', native_id: 'demo-sound' }]);
  });
});
