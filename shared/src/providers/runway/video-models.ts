/**
 * Which Runway models render from text alone and with which settings, per the API reference of
 * `POST /v1/text_to_video` (runwayml/sdk-node `TextToVideoCreateParams`, API version 2024-11-06):
 *
 * | model                  | duration (s)   | ratio                                         |
 * |------------------------|----------------|-----------------------------------------------|
 * | `gen4.5`               | 2 to 10        | 1280:720, 720:1280                            |
 * | `veo3`                 | 8              | 1280:720, 720:1280, 1920:1080, 1080:1920      |
 * | `veo3.1`, `veo3.1_fast`| 4, 6, 8        | 1280:720, 720:1280, 1920:1080, 1080:1920      |
 *
 * `promptText` is 1 to 1000 UTF-16 code units for all of them. The gateway's `aspect_ratio`
 * (16:9 by default) and `resolution` (720p by default) pick the ratio; 1:1 is not offered.
 *
 * `gen4_turbo` and `gen3a_turbo` are image-to-video only (`POST /v1/image_to_video` requires a
 * `promptImage`), and `gen4_aleph` is video-to-video (`POST /v1/video_to_video` requires a
 * `videoUri`): the gateway's text-only video request cannot be honoured by them and is refused.
 * Other ids are sent to text_to_video with the generic ratio table and left to Runway to validate.
 */

import { UnsupportedFeatureError } from '../chat-types.ts';
import type { VideoRequest } from '../media-types.ts';

type Orientation = '16:9' | '9:16';
type Resolution = '720p' | '1080p';

const FULL_RATIOS: Readonly<Record<Orientation, Readonly<Partial<Record<Resolution, string>>>>> = {
  '16:9': { '720p': '1280:720', '1080p': '1920:1080' },
  '9:16': { '720p': '720:1280', '1080p': '1080:1920' },
};
const HD_RATIOS: typeof FULL_RATIOS = { '16:9': { '720p': '1280:720' }, '9:16': { '720p': '720:1280' } };

export interface RunwayVideoModel {
  durations: readonly number[];
  ratios: typeof FULL_RATIOS;
}

const TEXT_TO_VIDEO_MODELS: Readonly<Record<string, RunwayVideoModel>> = {
  'gen4.5': { durations: [2, 3, 4, 5, 6, 7, 8, 9, 10], ratios: HD_RATIOS },
  veo3: { durations: [8], ratios: FULL_RATIOS },
  'veo3.1': { durations: [4, 6, 8], ratios: FULL_RATIOS },
  'veo3.1_fast': { durations: [4, 6, 8], ratios: FULL_RATIOS },
};

/** Models that need an image or a video as input, with the reason shown to the client. */
const CONDITIONED_MODELS: Readonly<Record<string, string>> = {
  gen4_turbo: 'renders from a first-frame image only (image to video)',
  gen3a_turbo: 'renders from a first-frame image only (image to video)',
  gen4_aleph: 'transforms an input video only (video to video)',
};

export const RUNWAY_MAX_PROMPT_LENGTH = 1000;

function ratioFor(request: VideoRequest, ratios: typeof FULL_RATIOS, model: string): string {
  if (request.aspect_ratio === '1:1') {
    throw new UnsupportedFeatureError('aspect_ratio', `Runway ${model} renders 16:9 or 9:16 only.`);
  }
  const resolution = request.resolution ?? '720p';
  const ratio = ratios[request.aspect_ratio ?? '16:9'][resolution];
  if (ratio === undefined) {
    throw new UnsupportedFeatureError('resolution', `Runway ${model} does not render ${resolution}.`);
  }
  return ratio;
}

/** The text_to_video body, or UnsupportedFeatureError when the model cannot render it. */
export function toTextToVideoBody(request: VideoRequest, model: string): Record<string, unknown> {
  const conditioned = CONDITIONED_MODELS[model];
  if (conditioned !== undefined) {
    throw new UnsupportedFeatureError(
      'model',
      `Runway ${model} ${conditioned}; it cannot render from a text prompt.`,
    );
  }
  if (request.prompt.length < 1 || request.prompt.length > RUNWAY_MAX_PROMPT_LENGTH) {
    throw new UnsupportedFeatureError(
      'prompt',
      `Runway prompts are 1 to ${RUNWAY_MAX_PROMPT_LENGTH} characters.`,
    );
  }
  const rules = TEXT_TO_VIDEO_MODELS[model];
  if (rules !== undefined && !rules.durations.includes(request.duration)) {
    const allowed = rules.durations.length > 3 ? '2 to 10' : rules.durations.join(', ');
    throw new UnsupportedFeatureError(
      'duration',
      `Runway ${model} renders ${allowed}-second videos only; got ${request.duration}.`,
    );
  }
  const ratio = ratioFor(request, rules?.ratios ?? FULL_RATIOS, model);
  return { model, promptText: request.prompt, ratio, duration: request.duration };
}
