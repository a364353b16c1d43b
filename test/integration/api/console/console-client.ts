import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createScryptHasher } from '../../../../api/src/console/password-hasher.ts';
import { admin, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { lateBound, made } from '../../../helpers/late-bound.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

export { TEST_ADMIN_TOKEN };

/**
 * The app of a console test file, with the operator token and `env`: built before its tests, closed
 * after them. Passwords are hashed at a cheap scrypt cost (the rules are the same) unless
 * `realHasher`: sessions.test.ts signs in with the real one.
 */
export function useConsoleApp(options: { env?: Record<string, string>; realHasher?: boolean } = {}): TestApp {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await buildTestApp({
      env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...options.env },
      ...(options.realHasher === true
        ? {}
        : { services: { passwordHasher: createScryptHasher({ N: 2 ** 10, r: 8, p: 1 }) } }),
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  return lateBound(() => made(t, 'the console app'));
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ConsoleRequest {
  readonly payload?: unknown;
  readonly headers?: Record<string, string>;
  readonly remoteAddress?: string;
  /** Leave the CSRF header out (or send this value instead). */
  readonly csrf?: 'none' | string;
}

/** The session cookie's value in a response, if it set one. */
export function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  const cookie = response.cookies.find((c) => c.name === 'gw_session');
  return cookie === undefined || cookie.value === '' ? undefined : cookie.value;
}

/** The raw `Set-Cookie` header of the session cookie. */
export function setCookieHeaderOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return all.find((line) => line.startsWith('gw_session=')) ?? '';
}

/**
 * A browser tab of the console: keeps the session cookie and the CSRF token, and sends both (the
 * token on state-changing calls) as the console's page does.
 */
export class ConsoleAgent {
  cookie: string | undefined;
  csrfToken: string | undefined;
  readonly app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.app = app;
  }

  async request(method: Method, path: string, options: ConsoleRequest = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie !== undefined) headers.cookie = `gw_session=${this.cookie}`;
    const changes = method !== 'GET';
    if (changes && options.csrf !== 'none') {
      const token = options.csrf ?? this.csrfToken;
      if (token !== undefined) headers['x-csrf-token'] = token;
      if (this.csrfToken === undefined) headers['x-requested-with'] = 'console';
    }
    const response = await this.app.inject({
      method,
      url: `/console/api${path}`,
      headers,
      ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
      ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> }),
    });
    this.remember(response);
    return response;
  }

  /** Keeps a new session cookie and CSRF token (sign-in), or forgets them (sign-out). */
  remember(response: LightMyRequestResponse): void {
    const set = response.cookies.find((c) => c.name === 'gw_session');
    if (set !== undefined) this.cookie = set.value === '' ? undefined : set.value;
    if (set !== undefined && set.value === '') this.csrfToken = undefined;
    if (response.statusCode === 200 && response.headers['content-type']?.toString().includes('json')) {
      const body = response.json<{ csrf_token?: unknown }>();
      if (typeof body.csrf_token === 'string') this.csrfToken = body.csrf_token;
    }
  }

  async signIn(email: string, password: string, remoteAddress?: string): Promise<LightMyRequestResponse> {
    this.csrfToken = undefined;
    return this.request('POST', '/session', { payload: { email, password }, remoteAddress });
  }

  async signInOperator(token = TEST_ADMIN_TOKEN): Promise<LightMyRequestResponse> {
    this.csrfToken = undefined;
    return this.request('POST', '/operator-session', { payload: { token } });
  }

  /** A JSON answer of the expected status, or the test fails naming what came instead. */
  async expect<T = Record<string, unknown>>(
    status: number,
    method: Method,
    path: string,
    options: ConsoleRequest = {},
  ): Promise<T> {
    const response = await this.request(method, path, options);
    if (response.statusCode !== status) {
      throw new Error(
        `${method} ${path} answered ${response.statusCode} (expected ${status}): ${response.body}`,
      );
    }
    return (response.body === '' ? {} : response.json()) as T;
  }
}

/** The token in an invitation URL (`…/console/invite#token=…`). */
export function tokenOf(url: string): string {
  const token = new URL(url).hash.replace(/^#token=/, '');
  if (token === '') throw new Error(`no token in ${url}`);
  return token;
}

let counter = 0;

export interface Holder {
  readonly accountId: string;
  readonly email: string;
  readonly password: string;
  readonly agent: ConsoleAgent;
}

/** A new account (operator API), its invitation followed with a password: a signed-in holder. */
export async function newHolder(app: FastifyInstance, options: { topUp?: number } = {}): Promise<Holder> {
  counter += 1;
  const email = `holder${counter}-${Date.now()}@example.test`;
  const account = await admin<{ id: string }>(app, 'POST', '/accounts', { email, name: `Holder ${counter}` });
  if ((options.topUp ?? 0) > 0)
    await admin(app, 'POST', `/accounts/${account.id}/topups`, { amount: options.topUp });
  const invitation = await admin<{ url: string }>(app, 'POST', `/accounts/${account.id}/invitations`, {});
  const password = `correct horse ${counter} battery`;
  const agent = new ConsoleAgent(app);
  await agent.expect(200, 'POST', '/password/set', { payload: { token: tokenOf(invitation.url), password } });
  return { accountId: account.id, email, password, agent };
}
