/**
 * The gateway's `size` (`<width>x<height>` or `auto`) and `aspect_ratio` turned into what Google's
 * image models take: an aspect ratio from a fixed list and, for Imagen, an output tier (`1K`/`2K`).
 *
 * Mapping (documented for clients): an explicit `aspect_ratio` must be one the model offers; a
 * `size` maps to the offered ratio nearest to width/height on a logarithmic scale (so 1536x1024,
 * 3:2, becomes 4:3 and 1792x1024 becomes 16:9; ties go to the squarer ratio). When both are given
 * they must agree. The tier is the one nearest in pixel count on the same scale: `2K` above
 * 2,097,152 pixels (the geometric mean of 1024² and 2048²), `1K` otherwise.
 */
import type { ImageRequest } from '../../media-types.ts';
import { UnsupportedFeatureError } from '../errors.ts';

export interface PixelSize {
  width: number;
  height: number;
}

/** Pixel count above which the nearest Imagen tier is 2K. */
export const TWO_K_THRESHOLD_PIXELS = 1024 * 2048;

/** The requested pixel size, or undefined for `auto` and no size. */
export function parseSize(size: string | undefined): PixelSize | undefined {
  if (size === undefined || size === 'auto') return undefined;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (!match || width < 1 || height < 1) {
    throw new UnsupportedFeatureError('size', `size must be <width>x<height> or auto, got "${size}".`);
  }
  return { width, height };
}

function ratioValue(ratio: string): number {
  const [width, height] = ratio.split(':').map(Number);
  return (width ?? 1) / (height ?? 1);
}

/** The offered ratio nearest to the size's width/height (log distance; ties go to the squarer one). */
export function nearestAspectRatio(size: PixelSize, offered: readonly string[]): string {
  const target = Math.log(size.width / size.height);
  let best = offered[0] ?? '1:1';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const ratio of offered) {
    const value = Math.log(ratioValue(ratio));
    const distance = Math.abs(value - target);
    const squarer = Math.abs(value) < Math.abs(Math.log(ratioValue(best)));
    if (distance < bestDistance - 1e-9 || (Math.abs(distance - bestDistance) <= 1e-9 && squarer)) {
      best = ratio;
      bestDistance = distance;
    }
  }
  return best;
}

/** The aspect ratio to ask for, or undefined to leave the model's default (1:1). */
export function aspectRatioFor(request: ImageRequest, offered: readonly string[]): string | undefined {
  const size = parseSize(request.size);
  const fromSize = size ? nearestAspectRatio(size, offered) : undefined;
  const explicit = request.aspect_ratio;
  if (explicit === undefined) return fromSize;
  if (!offered.includes(explicit)) {
    throw new UnsupportedFeatureError(
      'aspect_ratio',
      `aspect_ratio ${explicit} is not offered by this model; use one of ${offered.join(', ')}.`,
    );
  }
  if (fromSize !== undefined && fromSize !== explicit) {
    throw new UnsupportedFeatureError(
      'size',
      `size ${request.size} (nearest ratio ${fromSize}) contradicts aspect_ratio ${explicit}.`,
    );
  }
  return explicit;
}

/** `2K` when the requested size is nearer to Imagen's 2K tier than to its 1K tier. */
export function wantsTwoK(request: ImageRequest): boolean {
  const size = parseSize(request.size);
  return size !== undefined && size.width * size.height > TWO_K_THRESHOLD_PIXELS;
}
