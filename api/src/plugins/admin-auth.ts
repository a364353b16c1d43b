import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';

/**
 * Guards every route of the plugin it is registered in with `Authorization: Bearer <ADMIN_TOKEN>`.
 * Without a configured token the operator API does not exist: every route answers 404.
 */
export function requireAdminToken(app: FastifyInstance, adminToken: string | undefined): void {
  const expected = adminToken === undefined ? undefined : digest(adminToken);
  app.addHook('onRequest', async (request) => {
    if (expected === undefined) throw errors.routeNotFound(request.method, request.url.split('?')[0] ?? '');
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
      throw new AppError(
        401,
        'invalid_api_key',
        'invalid_admin_token',
        'A valid operator token is required.',
      );
    }
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
