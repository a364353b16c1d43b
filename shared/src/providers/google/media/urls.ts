/**
 * The Gemini API addresses of the media methods, built on the chat adapter's conventions
 * (`../api.ts`: API version `v1beta`, bare model ids, key in `x-goog-api-key`):
 * `POST {base}/v1beta/models/{model}:predict` (Imagen), `:predictLongRunning` (Veo),
 * `:generateContent` (Gemini image models) and `GET {base}/v1beta/{operation name}` (Veo polling).
 */
import type { UpstreamTarget } from '../../chat-types.ts';
import { UpstreamProtocolError } from '../../chat-types.ts';
import { bareModelId, GEMINI_API_VERSION } from '../api.ts';

/** `{base}/v1beta/models/{model}:{method}`. */
export function modelMethodUrl(target: UpstreamTarget, method: 'predict' | 'predictLongRunning'): string {
  const model = encodeURIComponent(bareModelId(target.nativeModel));
  return `${target.baseUrl}/${GEMINI_API_VERSION}/models/${model}:${method}`;
}

/**
 * A long-running operation name as the Gemini API returns it (`models/<model>/operations/<id>`,
 * or `operations/<id>`). Checked before it becomes part of a URL.
 */
const OPERATION_NAME = /^(?:models\/[A-Za-z0-9._-]+\/)?operations\/[A-Za-z0-9._-]+$/;

export function isOperationName(name: string): boolean {
  return OPERATION_NAME.test(name);
}

/** `GET {base}/v1beta/{name}`: the operation's current state. */
export function operationUrl(target: UpstreamTarget, name: string): string {
  if (!isOperationName(name)) throw new UpstreamProtocolError('Gemini operation name has an unexpected form');
  return `${target.baseUrl}/${GEMINI_API_VERSION}/${name}`;
}
