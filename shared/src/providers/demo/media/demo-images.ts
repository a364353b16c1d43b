/**
 * The demo provider's images: an offline, deterministic SIMULATOR. Each image is a real PNG
 * (`patternPng`): an 8x8 grid of colours drawn from a hash of the prompt and the image's index, so
 * the same prompt always gives the same images and the `n` images of one request differ.
 *
 * Size: `size` `<width>x<height>`, each side capped at DEMO_IMAGE_MAX_SIDE; `auto` or no size:
 * 1024x1024, or, when `aspect_ratio` `W:H` is given, 1024 on the longer side. `quality` and
 * `background` are accepted and ignored.
 */
import { patternPng } from '../../../file-formats/builders/png.ts';
import { seedOf } from '../../../file-formats/builders/seed.ts';
import { UnsupportedFeatureError } from '../../chat-types.ts';
import type { ImageRequest } from '../../media-types.ts';

export const DEMO_IMAGE_DEFAULT_SIDE = 1024;
export const DEMO_IMAGE_MAX_SIDE = 2048;
export const DEMO_IMAGE_MAX_N = 4;
const QUOTE_LENGTH = 200;

export interface DemoImage {
  png: Uint8Array;
  revisedPrompt: string;
}

function ratioSize(aspectRatio: string): { width: number; height: number } {
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspectRatio.trim());
  const w = Number(match?.[1]);
  const h = Number(match?.[2]);
  if (!(w > 0 && h > 0)) {
    throw new UnsupportedFeatureError('aspect_ratio', 'The demo image model expects aspect_ratio as W:H.');
  }
  const side = DEMO_IMAGE_DEFAULT_SIDE;
  return w >= h
    ? { width: side, height: Math.max(1, Math.round((side * h) / w)) }
    : { width: Math.max(1, Math.round((side * w) / h)), height: side };
}

/** The pixel size the demo draws for a request. */
export function demoImageSize(request: Pick<ImageRequest, 'size' | 'aspect_ratio'>): {
  width: number;
  height: number;
} {
  const size = request.size?.trim();
  if (size === undefined || size === '' || size === 'auto') {
    if (request.aspect_ratio !== undefined) return ratioSize(request.aspect_ratio);
    return { width: DEMO_IMAGE_DEFAULT_SIDE, height: DEMO_IMAGE_DEFAULT_SIDE };
  }
  const match = /^(\d{1,6})x(\d{1,6})$/.exec(size);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (!(width > 0 && height > 0)) {
    throw new UnsupportedFeatureError(
      'size',
      'The demo image model expects size as <width>x<height> or auto.',
    );
  }
  return { width: Math.min(width, DEMO_IMAGE_MAX_SIDE), height: Math.min(height, DEMO_IMAGE_MAX_SIDE) };
}

/** Draws `n` images for the prompt. */
function generate(request: ImageRequest): { images: DemoImage[] } {
  const n = request.n;
  if (!Number.isInteger(n) || n < 1 || n > DEMO_IMAGE_MAX_N) {
    throw new UnsupportedFeatureError('n', `The demo image model draws 1 to ${DEMO_IMAGE_MAX_N} images.`);
  }
  const { width, height } = demoImageSize(request);
  const revisedPrompt = `Demo image (simulated) of: ${request.prompt.slice(0, QUOTE_LENGTH)}`;
  const images = Array.from({ length: n }, (_, index) => ({
    png: patternPng(width, height, seedOf(`${index}:${request.prompt}`)),
    revisedPrompt,
  }));
  return { images };
}

/** The demo simulator's images capability. */
export const demoImages = { generate };
