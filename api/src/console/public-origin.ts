import type { FastifyRequest } from 'fastify';

/**
 * The origin users reach the service by, for links handed out: `PUBLIC_BASE_URL` when configured,
 * else the origin the request itself came to (scheme and host, as a trusted proxy forwarded them).
 * An operator asks for links, so a forged Host header only misleads the one who forged it.
 */
export function publicOrigin(request: FastifyRequest, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ?? `${request.protocol}://${request.host}`;
}
