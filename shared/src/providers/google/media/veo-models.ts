/**
 * What each Veo generation accepts through the Gemini API, per the parameter table of
 * https://ai.google.dev/gemini-api/docs/video (and the Vertex model cards for the same ids):
 *
 * | family  | durationSeconds | resolution                                | aspectRatio  |
 * |---------|-----------------|-------------------------------------------|--------------|
 * | Veo 3.1 | 4, 6, 8         | 720p (default), 1080p (8 s only)          | 16:9, 9:16   |
 * | Veo 3   | 4, 6, 8         | 720p (default), 1080p (16:9 only)         | 16:9, 9:16   |
 * | Veo 2   | 5, 6, 8         | not a parameter (renders 720p)            | 16:9, 9:16   |
 *
 * A request outside its model's row is refused (never rounded to a nearby duration: the price is
 * per second). Unknown Veo ids get only the checks common to every row and the upstream's own
 * validation.
 */
import type { VideoRequest } from '../../media-types.ts';
import { bareModelId } from '../api.ts';
import { UnsupportedFeatureError } from '../errors.ts';

export type VeoResolution = '720p' | '1080p';

export interface VeoRules {
  family: string;
  durations: readonly number[];
  /** False when the model takes no `resolution` parameter (it renders 720p). */
  resolutionParameter: boolean;
  /** Whether 1080p is offered, and under which extra condition. */
  fullHd: 'no' | 'eight-seconds-only' | 'landscape-only';
}

const VEO_3_1: VeoRules = {
  family: 'Veo 3.1',
  durations: [4, 6, 8],
  resolutionParameter: true,
  fullHd: 'eight-seconds-only',
};
const VEO_3: VeoRules = {
  family: 'Veo 3',
  durations: [4, 6, 8],
  resolutionParameter: true,
  fullHd: 'landscape-only',
};
const VEO_2: VeoRules = { family: 'Veo 2', durations: [5, 6, 8], resolutionParameter: false, fullHd: 'no' };

/** The rules of a Veo model id (`veo-3.1-…`, `veo-3.0-…`, `veo-2.0-…`), or undefined when unknown. */
export function veoRulesFor(nativeModel: string): VeoRules | undefined {
  const id = bareModelId(nativeModel);
  if (id.startsWith('veo-3.1-')) return VEO_3_1;
  if (id.startsWith('veo-3.0-') || id.startsWith('veo-3-')) return VEO_3;
  if (id.startsWith('veo-2.0-') || id.startsWith('veo-2-')) return VEO_2;
  return undefined;
}

function checkFullHd(rules: VeoRules, request: VideoRequest): void {
  if (request.resolution !== '1080p') return;
  if (rules.fullHd === 'no') {
    throw new UnsupportedFeatureError('resolution', `${rules.family} renders 720p only.`);
  }
  if (rules.fullHd === 'eight-seconds-only' && request.duration !== 8) {
    throw new UnsupportedFeatureError(
      'resolution',
      `${rules.family} renders 1080p only for 8-second videos.`,
    );
  }
  if (rules.fullHd === 'landscape-only' && request.aspect_ratio === '9:16') {
    throw new UnsupportedFeatureError('resolution', `${rules.family} renders 1080p only in 16:9.`);
  }
}

/** Throws UnsupportedFeatureError when the request is outside what the model renders. */
export function checkVeoRequest(request: VideoRequest, rules: VeoRules | undefined): void {
  if (!Number.isInteger(request.duration) || request.duration < 1) {
    throw new UnsupportedFeatureError('duration', 'duration must be a whole number of seconds.');
  }
  if (request.aspect_ratio === '1:1') {
    throw new UnsupportedFeatureError('aspect_ratio', 'Veo renders 16:9 or 9:16 only.');
  }
  if (rules === undefined) return;
  if (!rules.durations.includes(request.duration)) {
    throw new UnsupportedFeatureError(
      'duration',
      `${rules.family} renders ${rules.durations.join(', ')}-second videos only; got ${request.duration}.`,
    );
  }
  checkFullHd(rules, request);
}
