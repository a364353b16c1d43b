import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountRecord, AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { consoleErrors } from './console-errors.ts';
import { clearSessionCookie, sessionTokenOf } from './session-cookie.ts';
import type { ConsoleSession, SessionStore } from './session-store.ts';

/** The signed-in caller of a console route. */
export interface SignedIn {
  /** The cookie's token (sign-out and password change need it). */
  readonly token: string;
  readonly session: ConsoleSession;
  /** The holder's account, read at this request; null for an operator. */
  readonly account: AccountRecord | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's guard on routes that need a session. */
    signedIn?: SignedIn;
  }
}

/**
 * Who may call the routes of a plugin: `anyone` (sign-in, links; state changes need the header
 * `X-Requested-With: console`), `signed-in` (either role), `holder`, `operator`.
 */
export type Audience = 'anyone' | 'signed-in' | 'holder' | 'operator';

export interface ConsoleGuardDeps {
  readonly sessions: Pick<SessionStore, 'find' | 'end'>;
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  /** Without one, operator sign-in and operator routes do not exist (404). */
  readonly adminToken: string | undefined;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Guards every route of the plugin it is called in, before the body is even parsed: a session
 * (401 `session_required`), the right role (404 as for an unknown route: holders never learn the
 * operator routes, nor operators a holder's), the CSRF token on state changes (403
 * `csrf_token_invalid`), and an active account for holder routes (403 `account_inactive`).
 */
export function guardConsoleRoutes(app: FastifyInstance, deps: ConsoleGuardDeps, audience: Audience): void {
  const operatorDigest = deps.adminToken === undefined ? undefined : digest(deps.adminToken);
  app.addHook('onRequest', async (request, reply) => {
    const changesState = STATE_CHANGING.has(request.method);
    if (audience === 'anyone') {
      if (changesState && request.headers['x-requested-with'] !== 'console')
        throw consoleErrors.csrfTokenInvalid();
      return;
    }
    if (audience === 'operator' && operatorDigest === undefined) throw notFound(request);
    const signedIn = await signedInCaller(deps, operatorDigest, request, reply);
    const { role } = signedIn.session;
    if ((audience === 'holder' || audience === 'operator') && role !== audience) throw notFound(request);
    if (changesState && !sameSecret(request.headers['x-csrf-token'], signedIn.session.csrfToken)) {
      throw consoleErrors.csrfTokenInvalid();
    }
    if (audience === 'holder' && signedIn.account?.status !== 'active') throw consoleErrors.accountInactive();
    request.signedIn = signedIn;
  });
}

/** The caller of a guarded route; its absence is a wiring bug. */
export function requireSignedIn(request: FastifyRequest): SignedIn {
  if (request.signedIn === undefined) throw new Error(`route ${request.routeOptions.url} is not guarded`);
  return request.signedIn;
}

/** The holder's account of a holder route. */
export function requireHolderAccount(request: FastifyRequest): AccountRecord {
  const { account } = requireSignedIn(request);
  if (account === null) throw new Error(`route ${request.routeOptions.url} is not a holder route`);
  return account;
}

async function signedInCaller(
  deps: ConsoleGuardDeps,
  operatorDigest: Buffer | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedIn> {
  const token = sessionTokenOf(request);
  const session = token === undefined ? null : await deps.sessions.find(token);
  if (token === undefined || session === null) return signedOut(request, reply, token !== undefined);
  if (session.role === 'operator') {
    // A changed or removed ADMIN_TOKEN ends the sessions opened with the old one.
    const signedWith = Buffer.from(session.operatorTokenDigest ?? '', 'hex');
    const valid =
      operatorDigest !== undefined &&
      signedWith.length === operatorDigest.length &&
      timingSafeEqual(signedWith, operatorDigest);
    if (!valid) return endAndSignOut(deps, token, request, reply);
    return { token, session, account: null };
  }
  const account = session.accountId === null ? null : await deps.accounts.findById(session.accountId);
  if (account === null) return endAndSignOut(deps, token, request, reply);
  return { token, session, account };
}

async function endAndSignOut(
  deps: ConsoleGuardDeps,
  token: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<never> {
  await deps.sessions.end(token);
  return signedOut(request, reply, true);
}

function signedOut(request: FastifyRequest, reply: FastifyReply, hadCookie: boolean): never {
  // The browser drops a cookie whose session is gone (the error answer carries the header).
  if (hadCookie) clearSessionCookie(request, reply);
  throw consoleErrors.sessionRequired();
}

function notFound(request: FastifyRequest) {
  return errors.routeNotFound(request.method, request.url.split('?')[0] ?? '');
}

/** The SHA-256 of a secret, for comparisons in constant time whatever its length. */
export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function sameSecret(sent: string | string[] | undefined, expected: string): boolean {
  return typeof sent === 'string' && timingSafeEqual(digest(sent), digest(expected));
}
