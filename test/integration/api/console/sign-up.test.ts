import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScryptHasher } from '../../../../api/src/console/password-hasher.ts';
import { TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { linkIn, type SmtpInbox, startSmtpInbox } from '../../../helpers/smtp-inbox.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { ConsoleAgent, newHolder, tokenOf } from './console-client.ts';

let inbox: SmtpInbox;
let t: TestApp;
let n = 0;
const fresh = () => {
  n += 1;
  return `new${n}-${Date.now()}@example.test`;
};
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await buildTestApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SIGNUP_MODE: 'open',
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Gateway <no-reply@gateway.test>',
      PUBLIC_BASE_URL: 'https://gw.example.test',
    },
    services: { passwordHasher: createScryptHasher({ N: 2 ** 10, r: 8, p: 1 }) },
  });
});
afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

let ip = 0;
/** Each test from its own address, so the per-IP limits of one test leave the others alone. */
const nextIp = () => {
  ip += 1;
  return `198.51.100.${ip}`;
};

async function signUp(agent: ConsoleAgent, payload: object, remoteAddress = nextIp(), language = 'en') {
  return agent.request('POST', '/sign-up', {
    payload,
    remoteAddress,
    headers: { 'accept-language': language },
  });
}

describe('POST /console/api/sign-up', () => {
  it('answers 202, mails a verification link that opens the account and signs in, once', async () => {
    const email = fresh();
    const agent = new ConsoleAgent(t.app);
    const response = await signUp(agent, { email, password: PASSWORD, name: 'New Holder' });
    expect(response.statusCode).toBe(202);
    const [mail] = await inbox.waitFor(email);
    if (mail === undefined) throw new Error('no mail');
    expect(mail.from).toBe('no-reply@gateway.test');
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.html).toContain('https://gw.example.test/console/verify#token=');
    const link = linkIn(mail);
    expect(link.startsWith('https://gw.example.test/console/verify#token=')).toBe(true);
    // No account before the link is used.
    expect(await t.services.accounts.accounts.findByEmail(email)).toBeNull();
    const session = await agent.expect<{ role: string; account: { email: string } }>(
      200,
      'POST',
      '/sign-up/verify',
      {
        payload: { token: tokenOf(link) },
      },
    );
    expect(session).toMatchObject({ role: 'holder', account: { email } });
    const account = await t.services.accounts.accounts.findByEmail(email);
    expect(account).toMatchObject({ status: 'active', name: 'New Holder' });
    expect(await t.services.billing.balanceOf(account?.id ?? '')).toBe(0n);
    // Signed in: the holder's own routes answer.
    await agent.expect(200, 'GET', '/payments');
    // The link works once.
    const again = await new ConsoleAgent(t.app).request('POST', '/sign-up/verify', {
      payload: { token: tokenOf(link) },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('invitation_invalid');
    // The password chosen at sign-up signs in.
    const later = new ConsoleAgent(t.app);
    expect((await later.signIn(email, PASSWORD)).statusCode).toBe(200);
  });

  it('answers a taken email the same (202) and mails its holder instead, in Persian', async () => {
    const holder = await newHolder(t.app);
    const agent = new ConsoleAgent(t.app);
    const taken = await signUp(
      agent,
      { email: holder.email, password: PASSWORD },
      nextIp(),
      'fa-IR,fa;q=0.9',
    );
    const free = await signUp(agent, { email: fresh(), password: PASSWORD }, nextIp(), 'fa');
    expect(taken.statusCode).toBe(202);
    expect(taken.body).toBe(free.body);
    const [mail] = await inbox.waitFor(holder.email);
    expect(mail?.subject).toBe('کسی خواست با نشانی شما ثبت‌نام کند');
    expect(mail?.text).not.toContain('#token=');
    expect(mail?.html).toContain('dir="rtl"');
    // The holder's password did not change.
    expect((await new ConsoleAgent(t.app).signIn(holder.email, holder.password)).statusCode).toBe(200);
  });

  it('refuses a malformed email, a short password, unknown fields and a missing password with 400', async () => {
    const agent = new ConsoleAgent(t.app);
    for (const payload of [
      { email: 'not-an-email', password: PASSWORD },
      { email: fresh(), password: 'short' },
      { email: fresh(), password: PASSWORD, plan: 'gold' },
      { email: fresh() },
    ]) {
      const response = await signUp(agent, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
    }
  });

  it('also opens the account through POST /password/set with the link and a new password', async () => {
    const email = fresh();
    const agent = new ConsoleAgent(t.app);
    await signUp(agent, { email, password: PASSWORD });
    const [mail] = await inbox.waitFor(email);
    if (mail === undefined) throw new Error('no mail');
    const session = await agent.expect<{ account: { email: string } }>(200, 'POST', '/password/set', {
      payload: { token: tokenOf(linkIn(mail)), password: 'another good password' },
    });
    expect(session.account.email).toBe(email);
    expect((await new ConsoleAgent(t.app).signIn(email, 'another good password')).statusCode).toBe(200);
    const again = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token: tokenOf(linkIn(mail)), password: 'another good password' },
    });
    expect(again.statusCode).toBe(400);
  });

  it('refuses an unknown or forged verification token with 400', async () => {
    const agent = new ConsoleAgent(t.app);
    const response = await agent.request('POST', '/sign-up/verify', { payload: { token: 'forged' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invitation_invalid');
    const bad = await agent.request('POST', '/sign-up/verify', { payload: {} });
    expect(bad.statusCode).toBe(400);
  });

  it('opens one account when two pending sign-ups of one email are both verified', async () => {
    const email = fresh();
    const agent = new ConsoleAgent(t.app);
    await signUp(agent, { email, password: PASSWORD });
    await signUp(agent, { email, password: PASSWORD });
    const mails = await inbox.waitFor(email, 2);
    const tokens = mails.map((m) => tokenOf(linkIn(m)));
    const first = await new ConsoleAgent(t.app).request('POST', '/sign-up/verify', {
      payload: { token: tokens[0] },
    });
    const second = await new ConsoleAgent(t.app).request('POST', '/sign-up/verify', {
      payload: { token: tokens[1] },
    });
    expect([first.statusCode, second.statusCode]).toEqual([200, 400]);
  });

  it('limits sign-ups per email like sign-in (429)', async () => {
    const email = fresh();
    const agent = new ConsoleAgent(t.app);
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1)
      statuses.push((await signUp(agent, { email, password: PASSWORD }, address)).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(statuses[10]).toBe(429);
    // Counted apart from sign-ins: the address still signs in.
    const holder = await newHolder(t.app);
    expect((await new ConsoleAgent(t.app).signIn(holder.email, holder.password, address)).statusCode).toBe(
      200,
    );
  });

  it('limits forgotten-password mails per email (429)', async () => {
    const holder = await newHolder(t.app);
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      const response = await new ConsoleAgent(t.app).request('POST', '/password/forgot', {
        payload: { email: holder.email },
        remoteAddress: address,
      });
      statuses.push(response.statusCode);
    }
    expect(statuses.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('POST /console/api/password/forgot', () => {
  it('answers 202 for any email and mails a reset link to a holder, which sets the password once', async () => {
    const holder = await newHolder(t.app);
    const agent = new ConsoleAgent(t.app);
    const known = await agent.request('POST', '/password/forgot', {
      payload: { email: holder.email },
      remoteAddress: nextIp(),
      headers: { 'accept-language': 'en' },
    });
    const unknown = await agent.request('POST', '/password/forgot', {
      payload: { email: fresh() },
      remoteAddress: nextIp(),
    });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    const [mail] = await inbox.waitFor(holder.email);
    if (mail === undefined) throw new Error('no mail');
    expect(mail.subject).toBe('Set a new password');
    const link = linkIn(mail);
    expect(link.startsWith('https://gw.example.test/console/reset#token=')).toBe(true);
    const reset = new ConsoleAgent(t.app);
    await reset.expect(200, 'POST', '/password/set', {
      payload: { token: tokenOf(link), password: 'a brand new password' },
    });
    const again = await new ConsoleAgent(t.app).request('POST', '/password/set', {
      payload: { token: tokenOf(link), password: 'yet another password' },
    });
    expect(again.statusCode).toBe(400);
    expect((await new ConsoleAgent(t.app).signIn(holder.email, 'a brand new password')).statusCode).toBe(200);
    expect((await new ConsoleAgent(t.app).signIn(holder.email, holder.password)).statusCode).toBe(401);
  });

  it('refuses a malformed email and unknown fields with 400', async () => {
    const agent = new ConsoleAgent(t.app);
    for (const payload of [{ email: 'nope' }, { email: fresh(), extra: 1 }, {}]) {
      const response = await agent.request('POST', '/password/forgot', { payload, remoteAddress: nextIp() });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it('needs X-Requested-With: console (403)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/console/api/password/forgot',
      payload: { email: fresh() },
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('SIGNUP_MODE=invite (the default)', () => {
  let closed: TestApp;
  beforeAll(async () => {
    closed = await buildTestApp({ env: { SMTP_URL: inbox.url } });
  });
  afterAll(async () => {
    await closed?.close();
  });

  it('refuses sign-ups with 403 sign_up_closed and tells the page', async () => {
    const agent = new ConsoleAgent(closed.app);
    const response = await agent.request('POST', '/sign-up', {
      payload: { email: fresh(), password: PASSWORD },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('sign_up_closed');
    const settings = await agent.expect<{ sign_up: string; payments: { enabled: boolean } }>(
      200,
      'GET',
      '/self-serve',
    );
    expect(settings).toMatchObject({ sign_up: 'invite', payments: { enabled: false } });
  });
});
