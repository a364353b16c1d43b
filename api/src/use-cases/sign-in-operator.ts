import { timingSafeEqual } from 'node:crypto';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { digest } from '../console/console-auth.ts';
import { consoleErrors } from '../console/console-errors.ts';
import type { ConsoleSession, SessionStore } from '../console/session-store.ts';
import type { SignInLimiter } from '../console/sign-in-limiter.ts';

export interface OperatorSignInDeps {
  /** Without one, operator sign-in does not exist (404). */
  readonly adminToken: string | undefined;
  readonly limiter: SignInLimiter;
  readonly sessions: Pick<SessionStore, 'create'>;
}

export interface OperatorSignInInput {
  readonly token: string;
  readonly ip: string;
  /** The route, for the 404 when no token is configured. */
  readonly path: string;
}

/**
 * Signs an operator in with `ADMIN_TOKEN` (compared in constant time); counts against the client
 * IP's attempt limit (429). The session remembers the token's digest: rotating the token ends it.
 */
export async function signInOperator(
  deps: OperatorSignInDeps,
  input: OperatorSignInInput,
): Promise<{ token: string; session: ConsoleSession }> {
  if (deps.adminToken === undefined) throw errors.routeNotFound('POST', input.path);
  const attempt = await deps.limiter.attempt(null, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const expected = digest(deps.adminToken);
  if (!timingSafeEqual(digest(input.token), expected)) throw consoleErrors.invalidCredentials();
  await deps.limiter.succeeded(null, input.ip);
  return deps.sessions.create({
    role: 'operator',
    accountId: null,
    operatorTokenDigest: expected.toString('hex'),
  });
}
