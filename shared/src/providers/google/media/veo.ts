/**
 * Veo video generation through the Gemini API, a long-running operation, per
 * https://ai.google.dev/gemini-api/docs/video (REST) and js-genai `generateVideosConfigToMldev` /
 * `generateVideosOperationFromMldev`:
 * 1. submit: `POST {base}/v1beta/models/{model}:predictLongRunning` with `{instances: [{prompt}],
 *    parameters: {durationSeconds, aspectRatio?, resolution?}}` → `{name: 'models/…/operations/…'}`;
 * 2. poll: `GET {base}/v1beta/{name}` → `{done?, error?: {code, message}, response?:
 *    {generateVideoResponse: {generatedSamples: [{video: {uri}}], raiMediaFilteredReasons?}}}`;
 * 3. download: `GET {uri}` (a Gemini Files address, usually `…/files/{id}:download?alt=media`, kept
 *    as is) with the API key in `x-goog-api-key`.
 *
 * Decisions: the operation reports no progress (null). A finished operation without a sample but
 * with `raiMediaFilteredReasons` is a failed render (filtered), never billed. The key is sent only
 * to the configured API origin: a video address elsewhere is an undocumented answer.
 */

import { sanitizeUpstreamText } from '../../../upstream/upstream-text.ts';
import type { UpstreamTarget } from '../../chat-types.ts';
import { UpstreamProtocolError } from '../../chat-types.ts';
import type { MediaHttpRequest, VideoAdapter, VideoPollState, VideoRequest } from '../../media-types.ts';
import { geminiHeaders } from '../api.ts';
import { firstIssue } from '../wire-response.ts';
import { isOperationName, modelMethodUrl, operationUrl } from './urls.ts';
import { checkVeoRequest, veoRulesFor } from './veo-models.ts';
import { operationNameSchema, type VeoOperation, veoOperationSchema } from './wire-schemas.ts';

/** The `:predictLongRunning` body for a video request. */
export function toVeoBody(request: VideoRequest, nativeModel: string): Record<string, unknown> {
  const rules = veoRulesFor(nativeModel);
  checkVeoRequest(request, rules);
  const parameters: Record<string, unknown> = { durationSeconds: request.duration };
  if (request.aspect_ratio !== undefined) parameters.aspectRatio = request.aspect_ratio;
  if (request.resolution !== undefined && rules?.resolutionParameter !== false) {
    parameters.resolution = request.resolution;
  }
  return { instances: [{ prompt: request.prompt }], parameters };
}

function failedRender(operation: VeoOperation): VideoPollState | undefined {
  if (operation.error) {
    const message = operation.error.message ? sanitizeUpstreamText(operation.error.message) : '';
    return { state: 'failed', message: message ? `Veo: ${message}` : 'Veo: the render failed.' };
  }
  const answer = operation.response?.generateVideoResponse;
  const reasons = answer?.raiMediaFilteredReasons ?? [];
  if (reasons.length > 0 || (answer?.raiMediaFilteredCount ?? 0) > 0) {
    const why = reasons.length > 0 ? `: ${sanitizeUpstreamText(reasons.join(' '))}` : '.';
    return { state: 'failed', message: `Veo's safety filters removed the video${why}` };
  }
  return undefined;
}

/** The state of a polled operation. */
export function fromVeoOperation(json: unknown): VideoPollState {
  const parsed = veoOperationSchema.safeParse(json);
  if (!parsed.success) throw new UpstreamProtocolError(`Veo Operation: ${firstIssue(parsed.error)}`);
  const operation = parsed.data;
  if (operation.done !== true) return { state: 'running', progress: null };
  const failed = failedRender(operation);
  if (failed) return failed;
  const uri = operation.response?.generateVideoResponse?.generatedSamples?.[0]?.video?.uri;
  if (uri === undefined) throw new UpstreamProtocolError('Veo Operation: done without a video or an error');
  return { state: 'succeeded', downloadUrl: uri };
}

function sameOrigin(url: string, baseUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

export const googleVideo: VideoAdapter = {
  submit(request: VideoRequest, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'POST',
      url: modelMethodUrl(target, 'predictLongRunning'),
      headers: geminiHeaders(target.apiKey),
      body: JSON.stringify(toVeoBody(request, target.nativeModel)),
    };
  },
  submitted(json: unknown): { operationId: string } {
    const parsed = operationNameSchema.safeParse(json);
    if (!parsed.success || !isOperationName(parsed.data.name)) {
      throw new UpstreamProtocolError('Veo predictLongRunning: the answer has no operation name');
    }
    return { operationId: parsed.data.name };
  },
  poll(operationId: string, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'GET',
      url: operationUrl(target, operationId),
      headers: { 'x-goog-api-key': target.apiKey, accept: 'application/json' },
    };
  },
  polled: fromVeoOperation,
  download(downloadUrl: string, target: UpstreamTarget): MediaHttpRequest {
    if (!sameOrigin(downloadUrl, target.baseUrl)) {
      throw new UpstreamProtocolError('Veo video address is not on the Gemini API origin');
    }
    return { method: 'GET', url: downloadUrl, headers: { 'x-goog-api-key': target.apiKey } };
  },
};
