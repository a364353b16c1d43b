import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_LIFETIME } from './console-services.ts';

/** The console session cookie (docs/console.md). */
export const SESSION_COOKIE = 'gw_session';

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent with cross-site
 * sub-requests), Path=/, and Secure when the request came over HTTPS, directly or through a
 * trusted proxy's X-Forwarded-Proto (`request.protocol` believes only proxies in TRUST_PROXY).
 * It lives as long as the session may (30 days); Redis ends it sooner when idle or revoked.
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    maxAge: SESSION_LIFETIME.maxAgeMs / 1000,
  });
}

/** Tells the browser to drop the cookie (sign-out, or a cookie whose session ended). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
  });
}

/** The session token the request carries, if any. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const token = request.cookies[SESSION_COOKIE];
  return token === undefined || token === '' ? undefined : token;
}
