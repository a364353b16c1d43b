import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '../../../../../../shared/src/providers/chat-types.ts';
import {
  demoImageSize,
  demoImages,
  demoMedia,
} from '../../../../../../shared/src/providers/demo/media/index.ts';
import { decodePng } from '../../../../../helpers/png-decode.ts';

describe('demo images (simulator)', () => {
  it('draws n PNGs of the requested size that decode, with a revised prompt', () => {
    const { images } = demoImages.generate({ prompt: 'a red fox', n: 2, size: '256x128' });
    expect(images).toHaveLength(2);
    for (const image of images) {
      const png = decodePng(image.png);
      expect([png.width, png.height]).toEqual([256, 128]);
      expect(png.scanlines).toHaveLength(128 * (1 + 256 * 3));
      expect(image.revisedPrompt).toBe('Demo image (simulated) of: a red fox');
    }
    expect(images[0]?.png).not.toEqual(images[1]?.png);
  });

  it('is deterministic: same prompt, same images; another prompt, other images', () => {
    const once = demoMedia.images.generate({ prompt: 'a lighthouse', n: 1, size: '64x64' });
    const again = demoImages.generate({ prompt: 'a lighthouse', n: 1, size: '64x64', quality: 'high' });
    const other = demoImages.generate({ prompt: 'a lighthouse at night', n: 1, size: '64x64' });
    expect(once.images[0]?.png).toEqual(again.images[0]?.png);
    expect(once.images[0]?.png).not.toEqual(other.images[0]?.png);
  });

  it('sizes: default and auto 1024x1024, aspect ratio on the longer side, 2048 cap', () => {
    expect(demoImageSize({})).toEqual({ width: 1024, height: 1024 });
    expect(demoImageSize({ size: 'auto' })).toEqual({ width: 1024, height: 1024 });
    expect(demoImageSize({ aspect_ratio: '16:9' })).toEqual({ width: 1024, height: 576 });
    expect(demoImageSize({ size: 'auto', aspect_ratio: '9:16' })).toEqual({ width: 576, height: 1024 });
    expect(demoImageSize({ size: '1536x1024', aspect_ratio: '1:1' })).toEqual({ width: 1536, height: 1024 });
    expect(demoImageSize({ size: '4096x3000' })).toEqual({ width: 2048, height: 2048 });
    const png = decodePng(demoImages.generate({ prompt: 'p', n: 1 }).images[0]?.png ?? new Uint8Array());
    expect([png.width, png.height]).toEqual([1024, 1024]);
  });

  it('refuses a bad n, size or aspect ratio', () => {
    for (const n of [0, 5, 1.5]) {
      expect(() => demoImages.generate({ prompt: 'p', n })).toThrow(UnsupportedFeatureError);
    }
    for (const size of ['big', '0x10', '10x', '-5x5']) {
      expect(() => demoImageSize({ size })).toThrow(UnsupportedFeatureError);
    }
    expect(() => demoImageSize({ aspect_ratio: 'wide' })).toThrow(UnsupportedFeatureError);
  });
});
