/**
 * Where and how to call the Gemini API (generativelanguage, API-key auth).
 * Documented at https://ai.google.dev/api (generateContent, streamGenerateContent with `alt=sse`,
 * batchEmbedContents); the key goes in the `x-goog-api-key` header so it never lands in URLs or logs.
 */
import type { UpstreamTarget } from '../chat-types.ts';

/** Gemini's API version path; `v1beta` carries every field the adapter uses (thinking, JSON schema). */
export const GEMINI_API_VERSION = 'v1beta';

/** A bare model id: the catalogue may hold `models/gemini-…` or just `gemini-…`. */
export function bareModelId(nativeModel: string): string {
  return nativeModel.startsWith('models/') ? nativeModel.slice('models/'.length) : nativeModel;
}

function modelUrl(target: UpstreamTarget, method: string): string {
  const model = encodeURIComponent(bareModelId(target.nativeModel));
  return `${target.baseUrl}/${GEMINI_API_VERSION}/models/${model}:${method}`;
}

/** `generateContent`, or `streamGenerateContent?alt=sse` for a server-sent-event stream. */
export function chatUrl(target: UpstreamTarget, stream: boolean): string {
  return stream
    ? `${modelUrl(target, 'streamGenerateContent')}?alt=sse`
    : modelUrl(target, 'generateContent');
}

/** `batchEmbedContents`: one call for every input of an embeddings request. */
export function embeddingsUrl(target: UpstreamTarget): string {
  return modelUrl(target, 'batchEmbedContents');
}

/** JSON body plus the API key header. */
export function geminiHeaders(apiKey: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-goog-api-key': apiKey };
}
