import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

/**
 * Who may read `/metrics`: anyone reaching the address when no `METRICS_TOKEN` is configured,
 * else only a request sending it as `Authorization: Bearer <token>` (compared in constant time).
 */
export function metricsAccess(token: string | undefined): (authorization: string | undefined) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

/** The answer to a `/metrics` request without the right token (401, the service's error format). */
export function metricsTokenRequired(): AppError {
  return new AppError(401, 'invalid_api_key', 'invalid_metrics_token', 'A valid metrics token is required.');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
