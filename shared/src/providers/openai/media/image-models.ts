/**
 * What each OpenAI image model accepts, as data, and the mapping of the gateway's `size`,
 * `aspect_ratio`, `quality` and `background` onto it.
 *
 * Facts, from OpenAI's Create image reference (openai-node `ImageGenerateParams`) and the image
 * generation guide:
 * - GPT image models (`gpt-image-1`, `gpt-image-1-mini`, and newer `gpt-image-*`): sizes
 *   1024x1024, 1536x1024, 1024x1536 or `auto`; quality low|medium|high|auto; background
 *   transparent|opaque|auto; `n` 1 to 10; prompt up to 32000 characters; always base64 output
 *   (`response_format` is rejected), PNG unless `output_format` says otherwise.
 * - `dall-e-3`: sizes 1024x1024, 1792x1024, 1024x1792; quality standard|hd; `n` must be 1;
 *   prompt up to 4000 characters; `revised_prompt` in the answer.
 * - `dall-e-2`: sizes 256x256, 512x512, 1024x1024; quality standard only; `n` 1 to 10; prompt up
 *   to 1000 characters.
 * DALL·E models know no `background`: their images are opaque.
 *
 * Decisions: `size` wins over `aspect_ratio`. Without an explicit size (absent or `auto`), an
 * `aspect_ratio` maps to the supported size whose ratio is nearest on a log scale (16:9 -> 1536x1024
 * on GPT image models, 1792x1024 on dall-e-3), provided the orientation (landscape, portrait,
 * square) is kept: a 16:9 request on dall-e-2, which has only squares, is refused rather than
 * silently squared. Quality maps to the nearest the model has (dall-e-3: high -> hd, the rest
 * -> standard); dall-e-2 cannot honour `high` and refuses it.
 */
import { UnsupportedFeatureError } from '../../chat-types.ts';
import type { ImageRequest } from '../../media-types.ts';

export interface ImageModelRules {
  readonly family: 'gpt-image' | 'dall-e-3' | 'dall-e-2';
  readonly maxPromptChars: number;
  readonly maxImages: number;
  /** Supported `<w>x<h>` sizes, the default first (it wins ties when mapping an aspect ratio). */
  readonly sizes: readonly string[];
  readonly autoSize: boolean;
}

const GPT_IMAGE: ImageModelRules = {
  family: 'gpt-image',
  maxPromptChars: 32000,
  maxImages: 10,
  sizes: ['1024x1024', '1536x1024', '1024x1536'],
  autoSize: true,
};
const DALL_E_3: ImageModelRules = {
  family: 'dall-e-3',
  maxPromptChars: 4000,
  maxImages: 1,
  sizes: ['1024x1024', '1792x1024', '1024x1792'],
  autoSize: false,
};
const DALL_E_2: ImageModelRules = {
  family: 'dall-e-2',
  maxPromptChars: 1000,
  maxImages: 10,
  sizes: ['1024x1024', '512x512', '256x256'],
  autoSize: false,
};

/** The rules of a native model id; anything that is not DALL·E is treated as a GPT image model. */
export function imageModelRules(nativeModel: string): ImageModelRules {
  if (nativeModel.startsWith('dall-e-3')) return DALL_E_3;
  if (nativeModel.startsWith('dall-e-2')) return DALL_E_2;
  return GPT_IMAGE;
}

type Orientation = 'landscape' | 'portrait' | 'square';

function orientation(ratio: number): Orientation {
  if (ratio > 1) return 'landscape';
  return ratio < 1 ? 'portrait' : 'square';
}

function sizeRatio(size: string): number {
  const [width = '1', height = '1'] = size.split('x');
  return Number(width) / Number(height);
}

function parseAspectRatio(text: string): number {
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(text);
  const ratio = match ? Number(match[1]) / Number(match[2]) : Number.NaN;
  if (!Number.isFinite(ratio) || ratio <= 0) {
    throw new UnsupportedFeatureError('aspect_ratio', `aspect_ratio must look like 16:9, got "${text}".`);
  }
  return ratio;
}

/** The supported size nearest to an aspect ratio, keeping its orientation. */
export function nearestSize(aspectRatio: string, rules: ImageModelRules, model: string): string {
  const wanted = parseAspectRatio(aspectRatio);
  let best = rules.sizes[0] ?? '1024x1024';
  for (const size of rules.sizes) {
    const distance = Math.abs(Math.log(sizeRatio(size) / wanted));
    if (distance < Math.abs(Math.log(sizeRatio(best) / wanted))) best = size;
  }
  if (orientation(sizeRatio(best)) !== orientation(wanted)) {
    throw new UnsupportedFeatureError(
      'aspect_ratio',
      `OpenAI ${model} cannot make a ${aspectRatio} image; its sizes are ${rules.sizes.join(', ')}.`,
    );
  }
  return best;
}

/** The upstream `size`, or undefined to leave the model's default. */
export function upstreamSize(
  request: ImageRequest,
  rules: ImageModelRules,
  model: string,
): string | undefined {
  const { size, aspect_ratio: aspectRatio } = request;
  if (size !== undefined && size !== 'auto') {
    if (rules.sizes.includes(size)) return size;
    const supported = [...rules.sizes, ...(rules.autoSize ? ['auto'] : [])].join(', ');
    throw new UnsupportedFeatureError(
      'size',
      `OpenAI ${model} supports the sizes ${supported}, not ${size}.`,
    );
  }
  if (aspectRatio !== undefined) return nearestSize(aspectRatio, rules, model);
  return size === 'auto' && rules.autoSize ? 'auto' : undefined;
}

/** The upstream `quality`, or undefined to leave the model's default. */
export function upstreamQuality(
  request: ImageRequest,
  rules: ImageModelRules,
  model: string,
): string | undefined {
  const { quality } = request;
  if (quality === undefined) return undefined;
  if (rules.family === 'gpt-image') return quality;
  if (rules.family === 'dall-e-3') return quality === 'high' ? 'hd' : 'standard';
  if (quality === 'high') {
    throw new UnsupportedFeatureError('quality', `OpenAI ${model} has a single (standard) quality.`);
  }
  return undefined;
}

const GPT_IMAGE_BACKGROUNDS = ['transparent', 'opaque', 'auto'];

/** The upstream `background`, or undefined when the model has none to set. */
export function upstreamBackground(
  request: ImageRequest,
  rules: ImageModelRules,
  model: string,
): string | undefined {
  const { background } = request;
  if (background === undefined) return undefined;
  if (rules.family === 'gpt-image') {
    if (GPT_IMAGE_BACKGROUNDS.includes(background)) return background;
    throw new UnsupportedFeatureError('background', 'background must be transparent, opaque or auto.');
  }
  // DALL·E images are always opaque: `opaque` and `auto` are what it does anyway.
  if (background === 'opaque' || background === 'auto') return undefined;
  throw new UnsupportedFeatureError('background', `OpenAI ${model} makes opaque images only.`);
}
