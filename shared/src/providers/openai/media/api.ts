/**
 * Where and how the OpenAI media endpoints are called (also Groq's OpenAI-compatible audio API).
 *
 * URL convention, as for chat: the configured base URL includes the version path and has no
 * trailing slash (`https://api.openai.com/v1`, `https://api.groq.com/openai/v1`), so the media
 * endpoints are `<baseUrl>/images/generations`, `<baseUrl>/audio/speech`,
 * `<baseUrl>/audio/transcriptions`, `<baseUrl>/videos`, `<baseUrl>/videos/{id}` and
 * `<baseUrl>/videos/{id}/content`. Auth is `Authorization: Bearer <key>` on every one of them
 * (OpenAI API reference, "Authentication"; the content download included).
 */
import type { UpstreamTarget } from '../../chat-types.ts';

/** A path under the configured base URL (a trailing slash in configuration is tolerated). */
export function mediaUrl(baseUrl: string, path: string): string {
  return `${baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl}${path}`;
}

/** Headers for a JSON POST that answers JSON. */
export function jsonHeaders(target: UpstreamTarget): Record<string, string> {
  return {
    authorization: `Bearer ${target.apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
}

/**
 * Headers without a content type: GETs, and multipart POSTs whose boundary the sender's FormData
 * sets. `accept` follows openai-node (`application/octet-stream` for speech,
 * `application/binary` for the video download, JSON elsewhere).
 */
export function bearerHeaders(target: UpstreamTarget, accept = 'application/json'): Record<string, string> {
  return { authorization: `Bearer ${target.apiKey}`, accept };
}
