import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import type { IpFailureLimiter } from '../console/sign-in-limiter.ts';

/** What guards the operator API: its token, and the count of wrong ones per client IP. */
export interface AdminAuth {
  /** `ADMIN_TOKEN`; without one the operator API does not exist (every route answers 404). */
  readonly adminToken: string | undefined;
  /**
   * Wrong tokens per client IP, in Redis (so every replica counts alike), sharing the IP counter of
   * the console's sign-in, which takes the same token (docs/console.md).
   */
  readonly tokenLimiter: IpFailureLimiter;
}

/**
 * Guards every route of the plugin it is registered in with `Authorization: Bearer <ADMIN_TOKEN>`.
 * A wrong token is 401 and counts against the client IP; past the IP's limit every request of that
 * IP, the right token included, is 429 with `Retry-After` until its window ends (otherwise the
 * limit would only slow guessing down, not stop it). A right token costs one Redis read.
 */
export function requireAdminToken(app: FastifyInstance, auth: AdminAuth): void {
  const expected = auth.adminToken === undefined ? undefined : digest(auth.adminToken);
  app.addHook('onRequest', async (request) => {
    if (expected === undefined) throw errors.routeNotFound(request.method, request.url.split('?')[0] ?? '');
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const valid = match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
    const verdict = valid
      ? await auth.tokenLimiter.checkIp(request.ip)
      : await auth.tokenLimiter.failIp(request.ip);
    if (!verdict.allowed) throw tooManyWrongTokens(verdict.retryAfterSeconds);
    if (!valid) {
      throw new AppError(
        401,
        'invalid_api_key',
        'invalid_admin_token',
        'A valid operator token is required.',
      );
    }
  });
}

function tooManyWrongTokens(retryAfterSeconds: number): AppError {
  return new AppError(
    429,
    'rate_limit_exceeded',
    'rate_limit_exceeded',
    `Too many wrong operator tokens from this address; retry after ${retryAfterSeconds} seconds.`,
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  );
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
