/**
 * Gateway video request <-> OpenAI's Videos API (Sora 2): submit, poll, download.
 *
 * Shapes followed: openai-node resources/videos.ts and the video generation guide.
 * - Submit: `POST <baseUrl>/videos`, multipart form (as openai-node sends it; no file here) with
 *   `model`, `prompt`, `seconds` ('4' | '8' | '12', a string) and `size` ('1280x720', '720x1280';
 *   sora-2-pro also '1792x1024', '1024x1792'). Answer: the `Video` job `{id, object: 'video',
 *   status: 'queued', progress, …}`.
 * - Poll: `GET <baseUrl>/videos/{id}`, the same `Video` with `status` queued | in_progress |
 *   completed | failed, `progress` (percent) and `error {code, message}` when failed.
 * - Download: `GET <baseUrl>/videos/{id}/content` with the Bearer key; answers the MP4 bytes.
 *
 * Mapping: `duration` must be 4, 8 or 12 (anything else is refused, never rounded: the price is
 * per second); `aspect_ratio` 16:9 (the default here) or 9:16 and `resolution` 720p (default) or
 * 1080p give the size; Sora has no square output, so 1:1 is refused, and 1080p is sora-2-pro's
 * only. Because `polled` sees only the job, the download address it reports is the path
 * `/videos/{id}/content`, which `download` resolves against the configured base URL.
 */

import { sanitizeUpstreamText } from '../../../upstream/upstream-text.ts';
import { UnsupportedFeatureError, UpstreamProtocolError, type UpstreamTarget } from '../../chat-types.ts';
import type { MediaHttpRequest, VideoAdapter, VideoPollState, VideoRequest } from '../../media-types.ts';
import { bearerHeaders, mediaUrl } from './api.ts';
import { type WireVideo, wireVideoSchema } from './wire-schemas.ts';

export const SORA_DURATIONS: readonly number[] = [4, 8, 12];

const SORA_SIZES = {
  '16:9': { '720p': '1280x720', '1080p': '1792x1024' },
  '9:16': { '720p': '720x1280', '1080p': '1024x1792' },
} as const;

const CONTENT_PATH = /^\/videos\/[^/?#]+\/content$/;

/** The Sora `size` for an aspect ratio and resolution on a model. */
export function soraSize(request: VideoRequest, nativeModel: string): string {
  const aspectRatio = request.aspect_ratio ?? '16:9';
  const resolution = request.resolution ?? '720p';
  if (aspectRatio === '1:1') {
    throw new UnsupportedFeatureError('aspect_ratio', 'OpenAI Sora makes 16:9 or 9:16 videos, not 1:1.');
  }
  if (resolution === '1080p' && !nativeModel.startsWith('sora-2-pro')) {
    throw new UnsupportedFeatureError(
      'resolution',
      `OpenAI ${nativeModel} renders 720p only; 1080p needs sora-2-pro.`,
    );
  }
  return SORA_SIZES[aspectRatio][resolution];
}

/** The multipart fields of the submit request; throws UnsupportedFeatureError for what Sora cannot do. */
export function toVideoFields(request: VideoRequest, nativeModel: string): Record<string, string> {
  if (!SORA_DURATIONS.includes(request.duration)) {
    throw new UnsupportedFeatureError(
      'duration',
      `OpenAI Sora renders ${SORA_DURATIONS.join(', ')} seconds, not ${request.duration}.`,
    );
  }
  return {
    model: nativeModel,
    prompt: request.prompt,
    seconds: String(request.duration),
    size: soraSize(request, nativeModel),
  };
}

function parseVideo(json: unknown): WireVideo {
  const parsed = wireVideoSchema.safeParse(json);
  if (!parsed.success) {
    throw new UpstreamProtocolError('OpenAI video answer does not have the documented shape.');
  }
  return parsed.data;
}

function progressOf(video: WireVideo): number | null {
  if (video.progress === undefined || video.progress === null) return null;
  return Math.min(100, Math.max(0, video.progress));
}

/** The poll state of a `Video` job. */
export function videoPollState(json: unknown): VideoPollState {
  const video = parseVideo(json);
  switch (video.status) {
    case 'queued':
    case 'in_progress':
      return { state: 'running', progress: progressOf(video) };
    case 'completed':
      return { state: 'succeeded', downloadUrl: `/videos/${encodeURIComponent(video.id)}/content` };
    case 'failed': {
      const message = sanitizeUpstreamText(video.error?.message ?? '');
      return { state: 'failed', message: message === '' ? 'OpenAI reported the render as failed.' : message };
    }
  }
}

/** OpenAI video: Sora 2 and Sora 2 Pro. */
export const openaiVideoAdapter: VideoAdapter = {
  submit(request: VideoRequest, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'POST',
      url: mediaUrl(target.baseUrl, '/videos'),
      headers: bearerHeaders(target),
      body: { kind: 'multipart', fields: toVideoFields(request, target.nativeModel) },
    };
  },
  submitted: (json: unknown) => ({ operationId: parseVideo(json).id }),
  poll(operationId: string, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'GET',
      url: mediaUrl(target.baseUrl, `/videos/${encodeURIComponent(operationId)}`),
      headers: bearerHeaders(target),
    };
  },
  polled: videoPollState,
  download(downloadUrl: string, target: UpstreamTarget): MediaHttpRequest {
    // Only our own relative path: the Bearer key must never go to an address from an answer.
    if (!CONTENT_PATH.test(downloadUrl)) {
      throw new UpstreamProtocolError('OpenAI video download address is not a /videos/{id}/content path.');
    }
    return {
      method: 'GET',
      url: mediaUrl(target.baseUrl, downloadUrl),
      headers: bearerHeaders(target, 'application/binary'),
    };
  },
};
