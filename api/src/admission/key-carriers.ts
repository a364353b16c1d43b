import type { FastifyRequest } from 'fastify';

/**
 * The headers that may carry an API key, in the spec's priority order; the query parameter `key`
 * comes last. The first carrier that holds a non-empty value is the one used, whatever it holds.
 */
const HEADER_CARRIERS = ['x-api-key', 'x-goog-api-key', 'xi-api-key', 'x-key'] as const;

/** Returns the key a request presents, or undefined when no carrier holds one. */
export function presentedApiKey(request: Pick<FastifyRequest, 'headers' | 'query'>): string | undefined {
  const bearer = bearerToken(request.headers.authorization);
  if (bearer !== undefined) return bearer;
  for (const name of HEADER_CARRIERS) {
    const value = firstNonEmpty(request.headers[name]);
    if (value !== undefined) return value;
  }
  const query = request.query as Record<string, unknown> | undefined;
  return firstNonEmpty(query?.key);
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*Bearer\s+(.*?)\s*$/i.exec(header);
  return match?.[1] ? match[1] : undefined;
}

function firstNonEmpty(value: unknown): string | undefined {
  const values = Array.isArray(value) ? value : [value];
  for (const candidate of values) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return undefined;
}
