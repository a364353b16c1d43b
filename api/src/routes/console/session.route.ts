import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import { AppError } from '../../../../shared/src/errors/app-error.ts';
import { guardConsoleRoutes, requireHolderAccount, requireSignedIn } from '../../console/console-auth.ts';
import type { ConsoleServices } from '../../console/console-services.ts';
import { PASSWORD_LIMITS } from '../../console/password-hasher.ts';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from '../../console/session-cookie.ts';
import { changePassword } from '../../use-cases/change-password.ts';
import { setPasswordByLink } from '../../use-cases/set-password-by-link.ts';
import type { OpenedSession } from '../../use-cases/sign-in.ts';
import { signIn } from '../../use-cases/sign-in.ts';
import { signInOperator } from '../../use-cases/sign-in-operator.ts';
import {
  consoleErrorResponses,
  sessionSchema,
  toBillingCalendarView,
  toSessionView,
} from './console.schema.ts';

/** What the session routes need. */
export interface SessionRouteDeps {
  readonly console: ConsoleServices;
  readonly accounts: Pick<AccountsRepository, 'findById' | 'findByEmail'>;
  readonly adminToken: string | undefined;
  readonly clock: () => Date;
  /** `BILLING_TIME_ZONE`: every answer tells the page the billing day (docs/console.md). */
  readonly timeZone: string;
  /** Uses a sign-up's verification link with a password (self-serve.route.ts wires it). */
  readonly verifySignUpLink?: (token: string, password: string, ip: string) => Promise<OpenedSession>;
}

const calendar = (deps: SessionRouteDeps) => toBillingCalendarView(deps.timeZone, deps.clock());

const password = { type: 'string', minLength: 1, maxLength: PASSWORD_LIMITS.maxLength } as const;

function bodySchema<const P extends Record<string, object>>(properties: P) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  } as const;
}

const signInBody = bodySchema({ email: { type: 'string', minLength: 1, maxLength: 254 }, password });
const operatorBody = bodySchema({ token: { type: 'string', minLength: 1, maxLength: 1024 } });
const setPasswordBody = bodySchema({ token: { type: 'string', minLength: 1, maxLength: 200 }, password });
const changePasswordBody = bodySchema({ current_password: password, new_password: password });

const sessionResponses = { 200: sessionSchema, ...consoleErrorResponses } as const;
const emptyResponses = { 204: { type: 'null' }, ...consoleErrorResponses } as const;

/**
 * Sets the new session's cookie; a session the browser still carried ends (signing in as someone
 * else, or again, never leaves the previous session usable).
 */
async function replaceSession(
  services: ConsoleServices,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): Promise<void> {
  const previous = sessionTokenOf(request);
  if (previous !== undefined && previous !== token) await services.sessions.end(previous);
  setSessionCookie(request, reply, token);
}

/** Signing in (holder, operator) and setting a password from a link: no session yet. */
export async function signInRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  guardConsoleRoutes(app, { ...deps.console, ...deps }, 'anyone');
  const { console: services } = deps;

  app.post<{ Body: { email: string; password: string } }>(
    '/session',
    { schema: { body: signInBody, response: sessionResponses } },
    async (request, reply) => {
      const opened = await signIn(
        { ...services, accounts: deps.accounts },
        { ...request.body, ip: request.ip },
      );
      request.log.info({ accountId: opened.account.id }, 'console sign-in');
      await replaceSession(services, request, reply, opened.token);
      return toSessionView(opened.session, opened.account, calendar(deps));
    },
  );

  app.post<{ Body: { token: string } }>(
    '/operator-session',
    { schema: { body: operatorBody, response: sessionResponses } },
    async (request, reply) => {
      const opened = await signInOperator(
        { ...services, adminToken: deps.adminToken },
        { token: request.body.token, ip: request.ip, path: request.url.split('?')[0] ?? '' },
      );
      request.log.info('console operator sign-in');
      await replaceSession(services, request, reply, opened.token);
      return toSessionView(opened.session, null, calendar(deps));
    },
  );

  app.post<{ Body: { token: string; password: string } }>(
    '/password/set',
    { schema: { body: setPasswordBody, response: sessionResponses } },
    async (request, reply) => {
      const opened = await setPasswordByLink(
        { ...services, accounts: deps.accounts, clock: deps.clock },
        { ...request.body, ip: request.ip },
      ).catch(async (err: unknown) => {
        // A sign-up's verification link works here too (with the password sent): docs/payments.md.
        if (
          deps.verifySignUpLink === undefined ||
          !(err instanceof AppError) ||
          err.code !== 'invitation_invalid'
        )
          throw err;
        return deps.verifySignUpLink(request.body.token, request.body.password, request.ip).catch(() => {
          throw err;
        });
      });
      request.log.info({ accountId: opened.account.id }, 'console password set from a link');
      await replaceSession(services, request, reply, opened.token);
      return toSessionView(opened.session, opened.account, calendar(deps));
    },
  );
}

/** The current session, either role: read it, end it. */
export async function currentSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  guardConsoleRoutes(app, { ...deps.console, ...deps }, 'signed-in');

  app.get('/session', { schema: { response: sessionResponses } }, async (request) => {
    const { session, account } = requireSignedIn(request);
    return toSessionView(session, account, calendar(deps));
  });

  app.delete('/session', { schema: { response: emptyResponses } }, async (request, reply) => {
    await deps.console.sessions.end(requireSignedIn(request).token);
    clearSessionCookie(request, reply);
    return reply.code(204).send();
  });
}

/** A holder's sessions and password: sign out everywhere, change the password. */
export async function holderSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  guardConsoleRoutes(app, { ...deps.console, ...deps }, 'holder');

  app.delete('/sessions', { schema: { response: emptyResponses } }, async (request, reply) => {
    const account = requireHolderAccount(request);
    await deps.console.sessions.endAllOf(account.id);
    request.log.info({ accountId: account.id }, 'console: every session ended');
    clearSessionCookie(request, reply);
    return reply.code(204).send();
  });

  app.put<{ Body: { current_password: string; new_password: string } }>(
    '/password',
    { schema: { body: changePasswordBody, response: emptyResponses } },
    async (request, reply) => {
      const account = requireHolderAccount(request);
      await changePassword(
        { ...deps.console, clock: deps.clock },
        {
          account,
          sessionToken: requireSignedIn(request).token,
          currentPassword: request.body.current_password,
          newPassword: request.body.new_password,
          ip: request.ip,
        },
      );
      request.log.info({ accountId: account.id }, 'console password changed; other sessions ended');
      return reply.code(204).send();
    },
  );
}
