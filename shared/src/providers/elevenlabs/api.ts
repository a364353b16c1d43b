/**
 * Where and how to call the ElevenLabs API, per https://elevenlabs.io/docs/api-reference
 * (Authentication: the key goes in the `xi-api-key` header; every endpoint is under `/v1`).
 * The configured base URL has no version path (`https://api.elevenlabs.io`).
 */
import type { UpstreamTarget } from '../chat-types.ts';

export const ELEVENLABS_API_VERSION = 'v1';

/** `{base}/v1{path}` (a trailing slash in configuration is tolerated). */
export function elevenlabsUrl(target: UpstreamTarget, path: string): string {
  const base = target.baseUrl.endsWith('/') ? target.baseUrl.slice(0, -1) : target.baseUrl;
  return `${base}/${ELEVENLABS_API_VERSION}${path}`;
}

/** The key header plus what the request accepts; a JSON body adds its content type. */
export function elevenlabsHeaders(apiKey: string, accept: string, json = false): Record<string, string> {
  return { 'xi-api-key': apiKey, accept, ...(json ? { 'content-type': 'application/json' } : {}) };
}
