/**
 * Where and how to call the Runway API, per https://docs.dev.runwayml.com/api (and the official
 * runwayml/sdk-node client): every request carries `Authorization: Bearer <key>` and the API
 * version header `X-Runway-Version: 2024-11-06`; endpoints are under `/v1`. The configured base URL
 * has no version path (`https://api.dev.runwayml.com`).
 */
import type { UpstreamTarget } from '../chat-types.ts';

export const RUNWAY_API_VERSION = '2024-11-06';

/** `{base}/v1{path}` (a trailing slash in configuration is tolerated). */
export function runwayUrl(target: UpstreamTarget, path: string): string {
  const base = target.baseUrl.endsWith('/') ? target.baseUrl.slice(0, -1) : target.baseUrl;
  return `${base}/v1${path}`;
}

/** Bearer auth, the API version, and a JSON content type for bodies. */
export function runwayHeaders(apiKey: string, json = false): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    'x-runway-version': RUNWAY_API_VERSION,
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}
