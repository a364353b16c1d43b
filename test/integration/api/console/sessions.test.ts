import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../../../api/src/console/session-store.ts';
import { dayOf } from '../../../../shared/src/billing/billing-time.ts';
import { admin } from '../../../helpers/admin-client.ts';
import { buildTestApp } from '../../../helpers/test-app.ts';
import {
  ConsoleAgent,
  newHolder,
  sessionCookieOf,
  setCookieHeaderOf,
  tokenOf,
  useConsoleApp,
} from './console-client.ts';

// 127.0.0.1 (inject's default peer) is a trusted proxy: its X-Forwarded-Proto is believed.
const t = useConsoleApp({ env: { TRUST_PROXY: '127.0.0.1' }, realHasher: true });

/** The billing calendar every session answer carries: the zone, and today there. */
function billingCalendar() {
  const timeZone = t.config.billing.timeZone;
  return { time_zone: timeZone, today: dayOf(new Date(), timeZone) };
}

describe('holder sign-in and sign-out', () => {
  it('signs in, reads the session, signs out; the session is gone afterwards (401)', async () => {
    const holder = await newHolder(t.app);
    const agent = new ConsoleAgent(t.app);
    const signedIn = await agent.signIn(holder.email, holder.password);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toEqual({
      role: 'holder',
      account: {
        id: holder.accountId,
        email: holder.email,
        name: expect.any(String),
        status: 'active',
        created_at: expect.any(String),
      },
      csrf_token: expect.any(String),
      billing: billingCalendar(),
    });
    const oldCookie = agent.cookie;

    const session = await agent.expect(200, 'GET', '/session');
    expect(session).toEqual(signedIn.json());

    const out = await agent.request('DELETE', '/session');
    expect(out.statusCode).toBe(204);
    expect(setCookieHeaderOf(out)).toMatch(/^gw_session=;/);

    agent.cookie = oldCookie;
    const after = await agent.request('GET', '/session');
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toMatchObject({ code: 'session_required', type: 'invalid_api_key' });
  });

  it('ends the session a browser still carries when it signs in again', async () => {
    const holder = await newHolder(t.app);
    const before = holder.agent.cookie;
    expect((await holder.agent.signIn(holder.email, holder.password)).statusCode).toBe(200);
    expect(holder.agent.cookie).not.toBe(before);
    const stale = new ConsoleAgent(t.app);
    stale.cookie = before;
    expect((await stale.request('GET', '/session')).statusCode).toBe(401);
    expect((await holder.agent.request('GET', '/session')).statusCode).toBe(200);
  });

  it('answers 401 without a session, and for a cookie that names none', async () => {
    const agent = new ConsoleAgent(t.app);
    expect((await agent.request('GET', '/session')).statusCode).toBe(401);
    agent.cookie = 'not-a-session';
    const bogus = await agent.request('GET', '/session');
    expect(bogus.statusCode).toBe(401);
    // The browser is told to drop the cookie.
    expect(setCookieHeaderOf(bogus)).toMatch(/^gw_session=;/);
  });

  it('gives unknown emails and wrong passwords the very same answer', async () => {
    const holder = await newHolder(t.app);
    const agent = new ConsoleAgent(t.app);
    const wrong = await agent.signIn(holder.email, 'wrong password!', '10.9.0.1');
    const unknown = await agent.signIn('nobody-here@example.test', 'wrong password!', '10.9.0.2');
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(sessionCookieOf(response)).toBeUndefined();
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect(unknown.body).toBe(wrong.body);
    expect(wrong.json()).toEqual({
      error: {
        message: 'The email or the password is wrong.',
        type: 'invalid_api_key',
        code: 'invalid_credentials',
        param: null,
      },
    });
  });

  it('treats an account invited but without a password yet like an unknown email', async () => {
    const account = await admin<{ id: string; email: string }>(t.app, 'POST', '/accounts', {
      email: `invited-${Date.now()}@example.test`,
    });
    const response = await new ConsoleAgent(t.app).signIn(account.email, 'any password at all');
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid_credentials');
  });

  it('compares emails case-insensitively', async () => {
    const holder = await newHolder(t.app);
    const response = await new ConsoleAgent(t.app).signIn(holder.email.toUpperCase(), holder.password);
    expect(response.statusCode).toBe(200);
  });

  it('refuses a deactivated account with the right password only, and ends its use of sessions', async () => {
    const holder = await newHolder(t.app);
    await admin(t.app, 'PATCH', `/accounts/${holder.accountId}`, { status: 'inactive' });
    const wrong = await new ConsoleAgent(t.app).signIn(holder.email, 'not the password');
    expect(wrong.json().error.code).toBe('invalid_credentials');
    const right = await new ConsoleAgent(t.app).signIn(holder.email, holder.password);
    expect(right.statusCode).toBe(403);
    expect(right.json().error.code).toBe('account_inactive');
    // The session opened before is refused on holder routes.
    const keys = await holder.agent.request('GET', '/keys');
    expect(keys.statusCode).toBe(403);
    expect(keys.json().error.code).toBe('account_inactive');
  });
});

describe('cookie flags', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, with a Max-Age, and not Secure over plain HTTP', async () => {
    const holder = await newHolder(t.app);
    const response = await new ConsoleAgent(t.app).signIn(holder.email, holder.password);
    const header = setCookieHeaderOf(response);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Lax/);
    expect(header).toMatch(/; Path=\//);
    expect(header).toMatch(/; Max-Age=2592000/);
    expect(header).not.toMatch(/Secure/);
  });

  it('is Secure when a trusted proxy says the request came over HTTPS, not when anyone else does', async () => {
    const holder = await newHolder(t.app);
    const viaProxy = await new ConsoleAgent(t.app).request('POST', '/session', {
      payload: { email: holder.email, password: holder.password },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(setCookieHeaderOf(viaProxy)).toMatch(/; Secure/);

    const spoofed = await new ConsoleAgent(t.app).request('POST', '/session', {
      payload: { email: holder.email, password: holder.password },
      headers: { 'x-forwarded-proto': 'https' },
      remoteAddress: '203.0.113.7',
    });
    expect(spoofed.statusCode).toBe(200);
    expect(setCookieHeaderOf(spoofed)).not.toMatch(/Secure/);
  });
});

describe('CSRF', () => {
  it('refuses a state change without the token, or with a wrong one (403)', async () => {
    const holder = await newHolder(t.app);
    for (const csrf of ['none', 'wrong-token']) {
      const response = await holder.agent.request('POST', '/keys', { payload: { name: 'x' }, csrf });
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toMatchObject({ code: 'csrf_token_invalid', type: 'permission_error' });
    }
    const signOut = await holder.agent.request('DELETE', '/session', { csrf: 'none' });
    expect(signOut.statusCode).toBe(403);
    expect((await holder.agent.request('GET', '/keys')).json().data).toEqual([]);
    await holder.agent.expect(201, 'POST', '/keys', { payload: { name: 'x' } });
  });

  it('does not accept another session’s token', async () => {
    const one = await newHolder(t.app);
    const other = await newHolder(t.app);
    const response = await one.agent.request('POST', '/keys', {
      payload: { name: 'x' },
      csrf: other.agent.csrfToken,
    });
    expect(response.statusCode).toBe(403);
  });

  it('requires X-Requested-With: console on sign-in and on password setting', async () => {
    const holder = await newHolder(t.app);
    for (const url of [
      '/console/api/session',
      '/console/api/password/set',
      '/console/api/operator-session',
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        payload: { email: holder.email, password: holder.password, token: 'x' },
      });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().error.code).toBe('csrf_token_invalid');
    }
  });

  it('sends no CORS headers, so no other origin can read an answer', async () => {
    const holder = await newHolder(t.app);
    const response = await holder.agent.request('GET', '/session', {
      headers: { origin: 'https://evil.example' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('revocation', () => {
  it('signs out everywhere: every session of the account ends, no other account’s', async () => {
    const holder = await newHolder(t.app);
    const second = new ConsoleAgent(t.app);
    await second.signIn(holder.email, holder.password);
    const bystander = await newHolder(t.app);

    const response = await holder.agent.request('DELETE', '/sessions');
    expect(response.statusCode).toBe(204);

    expect((await second.request('GET', '/session')).statusCode).toBe(401);
    holder.agent.cookie = sessionCookieOf(response) ?? holder.agent.cookie;
    expect((await holder.agent.request('GET', '/session')).statusCode).toBe(401);
    expect((await bystander.agent.request('GET', '/session')).statusCode).toBe(200);
  });

  it('changes the password: the other sessions end, this one stays, the new password works', async () => {
    const holder = await newHolder(t.app);
    const other = new ConsoleAgent(t.app);
    await other.signIn(holder.email, holder.password);

    const wrong = await holder.agent.request('PUT', '/password', {
      payload: { current_password: 'not it at all', new_password: 'a brand new password' },
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('invalid_credentials');
    expect((await other.request('GET', '/session')).statusCode).toBe(200);

    const short = await holder.agent.request('PUT', '/password', {
      payload: { current_password: holder.password, new_password: 'short' },
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.code).toBe('password_too_short');

    const changed = await holder.agent.request('PUT', '/password', {
      payload: { current_password: holder.password, new_password: 'a brand new password' },
    });
    expect(changed.statusCode).toBe(204);
    expect((await other.request('GET', '/session')).statusCode).toBe(401);
    expect((await holder.agent.request('GET', '/session')).statusCode).toBe(200);
    expect((await new ConsoleAgent(t.app).signIn(holder.email, holder.password)).statusCode).toBe(401);
    expect((await new ConsoleAgent(t.app).signIn(holder.email, 'a brand new password')).statusCode).toBe(200);
  });
});

describe('invitation and reset links', () => {
  it('works once: sets the password and signs in; a second use is refused', async () => {
    const account = await admin<{ id: string; email: string }>(t.app, 'POST', '/accounts', {
      email: `once-${Date.now()}@example.test`,
    });
    const link = await admin<{ url: string; purpose: string; expires_at: string }>(
      t.app,
      'POST',
      `/accounts/${account.id}/invitations`,
    );
    expect(link.purpose).toBe('invite');
    const token = tokenOf(link.url);

    const short = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token, password: 'too short' },
    });
    expect(short.json().error.code).toBe('password_too_short');

    const agent = new ConsoleAgent(t.app);
    const set = await agent.request('POST', '/password/set', {
      payload: { token, password: 'first password!' },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ role: 'holder', account: { id: account.id } });
    expect(sessionCookieOf(set)).toBeDefined();

    const again = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token, password: 'second password!' },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('invitation_invalid');
    expect((await new ConsoleAgent(t.app).signIn(account.email, 'first password!')).statusCode).toBe(200);
  });

  it('resets a password: the link of purpose reset ends the earlier sessions', async () => {
    const holder = await newHolder(t.app);
    const link = await admin<{ url: string; purpose: string }>(
      t.app,
      'POST',
      `/accounts/${holder.accountId}/invitations`,
      { purpose: 'reset' },
    );
    expect(link.purpose).toBe('reset');
    const agent = new ConsoleAgent(t.app);
    await agent.expect(200, 'POST', '/password/set', {
      payload: { token: tokenOf(link.url), password: 'reset password 1' },
    });
    expect((await holder.agent.request('GET', '/session')).statusCode).toBe(401);
    expect((await agent.request('GET', '/session')).statusCode).toBe(200);
  });

  it('voids the earlier link of an account when another is made', async () => {
    const account = await admin<{ id: string }>(t.app, 'POST', '/accounts', {
      email: `twice-${Date.now()}@example.test`,
    });
    const first = await admin<{ url: string }>(t.app, 'POST', `/accounts/${account.id}/invitations`);
    const second = await admin<{ url: string }>(t.app, 'POST', `/accounts/${account.id}/invitations`);
    const stale = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token: tokenOf(first.url), password: 'some password!' },
    });
    expect(stale.json().error.code).toBe('invitation_invalid');
    const fresh = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token: tokenOf(second.url), password: 'some password!' },
    });
    expect(fresh.statusCode).toBe(200);
  });

  it('refuses an expired link', async () => {
    const account = await admin<{ id: string }>(t.app, 'POST', '/accounts', {
      email: `expired-${Date.now()}@example.test`,
    });
    const link = await admin<{ url: string; expires_at: string }>(
      t.app,
      'POST',
      `/accounts/${account.id}/invitations`,
      { purpose: 'reset' },
    );
    // A reset link lives one hour.
    const expiresAt = Date.parse(link.expires_at);
    expect(expiresAt - Date.now()).toBeGreaterThan(3_500_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(3_600_000);
    const { credentials } = t.services.console;
    const tokenHash = digestOf(tokenOf(link.url));
    expect(await credentials.setPasswordByInvitation(tokenHash, 'scrypt$x', new Date(expiresAt))).toBeNull();
    // Still valid just before.
    expect(await credentials.setPasswordByInvitation(tokenHash, 'scrypt$x', new Date(expiresAt - 1))).toEqual(
      {
        accountId: account.id,
        purpose: 'reset',
      },
    );
  });

  it('keeps the link usable when the password cannot be written, and sets it on the next try', async (context) => {
    if (t.config.store.kind !== 'sqlite') context.skip('the failing write is an SQLite trigger here');
    const account = await admin<{ id: string; email: string }>(t.app, 'POST', '/accounts', {
      email: `failing-${Date.now()}@example.test`,
    });
    const link = await admin<{ url: string }>(t.app, 'POST', `/accounts/${account.id}/invitations`);
    const token = tokenOf(link.url);
    // Another connection to the app's file refuses this account's password writes (a full disk,
    // a killed process: anything between reading the link and writing the password).
    const db = new DatabaseSync(t.config.store.kind === 'sqlite' ? t.config.store.path : '');
    const refuse = (event: string) =>
      `CREATE TRIGGER refuse_${event} BEFORE ${event} ON account_credentials
       WHEN NEW.account_id = '${account.id}' BEGIN SELECT RAISE(ABORT, 'disk full'); END`;
    db.exec(refuse('INSERT'));
    db.exec(refuse('UPDATE'));
    try {
      const failed = await new ConsoleAgent(t.app).request('POST', '/password/set', {
        payload: { token, password: 'first password!' },
      });
      expect(failed.statusCode).toBe(500);
      expect(sessionCookieOf(failed)).toBeUndefined();
    } finally {
      db.exec('DROP TRIGGER refuse_INSERT');
      db.exec('DROP TRIGGER refuse_UPDATE');
      db.close();
    }
    expect((await new ConsoleAgent(t.app).signIn(account.email, 'first password!')).statusCode).toBe(401);
    const retried = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token, password: 'first password!' },
    });
    expect(retried.statusCode).toBe(200);
    expect((await new ConsoleAgent(t.app).signIn(account.email, 'first password!')).statusCode).toBe(200);
  });

  it('refuses an unknown token', async () => {
    const response = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token: 'made-up-token', password: 'some password!' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invitation_invalid');
  });
});

describe('operator sessions', () => {
  it('signs in with ADMIN_TOKEN only; a wrong token is 401 invalid_credentials', async () => {
    const wrong = await new ConsoleAgent(t.app).signInOperator('x'.repeat(40));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credentials');
    const agent = new ConsoleAgent(t.app);
    const ok = await agent.signInOperator();
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      role: 'operator',
      csrf_token: expect.any(String),
      billing: billingCalendar(),
    });
    expect(await agent.expect(200, 'GET', '/session')).toEqual(ok.json());
  });

  it('refuses operator endpoints without a session (401) and to holders (404 as an unknown route)', async () => {
    const anonymous = await new ConsoleAgent(t.app).request('GET', '/accounts');
    expect(anonymous.statusCode).toBe(401);
    const holder = await newHolder(t.app);
    for (const [method, path] of [
      ['GET', '/accounts'],
      ['POST', '/accounts'],
      ['GET', `/accounts/${holder.accountId}`],
      ['GET', `/accounts/${holder.accountId}/ledger`],
      ['POST', `/accounts/${holder.accountId}/topups`],
      ['POST', `/accounts/${holder.accountId}/invitations`],
      ['GET', '/queues'],
      ['POST', '/queues/video/failed/x/retry'],
    ] as const) {
      const response = await holder.agent.request(method, path, { payload: { amount: 1 } });
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(response.json().error.message).toBe(`Unknown route: ${method} /console/api${path}`);
    }
  });

  it('does not give operators the holder endpoints', async () => {
    const agent = new ConsoleAgent(t.app);
    await agent.signInOperator();
    expect((await agent.request('GET', '/keys')).statusCode).toBe(404);
    expect((await agent.request('DELETE', '/sessions')).statusCode).toBe(404);
  });
});

describe('without ADMIN_TOKEN', () => {
  it('has no operator sign-in nor operator endpoints (404)', async () => {
    const bare = await buildTestApp();
    try {
      const signIn = await new ConsoleAgent(bare.app).signInOperator('x'.repeat(40));
      expect(signIn.statusCode).toBe(404);
      expect((await new ConsoleAgent(bare.app).request('GET', '/accounts')).statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
