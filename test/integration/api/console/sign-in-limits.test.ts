import { describe, expect, it } from 'vitest';
import type { PasswordHasher } from '../../../../api/src/console/password-hasher.ts';
import { SIGN_IN_LIMITS } from '../../../../api/src/console/sign-in-limiter.ts';
import { signIn } from '../../../../api/src/use-cases/sign-in.ts';
import { ConsoleAgent, newHolder, TEST_ADMIN_TOKEN, useConsoleApp } from './console-client.ts';

// A cheap scrypt cost: these tests make hundreds of attempts.
const t = useConsoleApp();

let network = 0;
/** A client address of its own, so that one test's attempts never count against another's. */
function freshIp(): string {
  network += 1;
  return `198.51.${network}.`;
}

describe('brute force', () => {
  it('refuses an account past 10 attempts from one address (429, Retry-After); elsewhere its holder still gets in', async () => {
    const holder = await newHolder(t.app);
    const ip = `${freshIp()}1`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndIp; i++) {
      const response = await new ConsoleAgent(t.app).signIn(holder.email, `wrong guess ${i}`, ip);
      expect(response.statusCode).toBe(401);
    }
    // From that address, the right password does not help any more, nor another spelling.
    for (const email of [holder.email, holder.email.toUpperCase()]) {
      const refused = await new ConsoleAgent(t.app).signIn(email, holder.password, ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toMatchObject({
        code: 'rate_limit_exceeded',
        type: 'rate_limit_exceeded',
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_LIMITS.windowMs / 1000);
    }
    // Whoever guessed from there cannot keep the holder out: from the holder's own address it works.
    expect(
      (await new ConsoleAgent(t.app).signIn(holder.email, holder.password, `${freshIp()}1`)).statusCode,
    ).toBe(200);
    // Another account from the guessing address is not affected either, nor the holder's session.
    const other = await newHolder(t.app);
    expect((await new ConsoleAgent(t.app).signIn(other.email, other.password, ip)).statusCode).toBe(200);
    expect((await holder.agent.request('GET', '/session')).statusCode).toBe(200);
  });

  it('refuses an account past 100 attempts from anywhere, however many addresses share them', async () => {
    const holder = await newHolder(t.app);
    const ips = freshIp();
    const perAddress = SIGN_IN_LIMITS.perAccountAndIp - 1;
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) {
      const ip = `${ips}${Math.floor(i / perAddress) + 1}`;
      const response = await new ConsoleAgent(t.app).signIn(holder.email, `spread guess ${i}`, ip);
      expect(response.statusCode).toBe(401);
    }
    const refused = await new ConsoleAgent(t.app).signIn(holder.email, holder.password, `${ips}250`);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits an unknown email exactly as a known one: the limit reveals nothing', async () => {
    const ip = `${freshIp()}1`;
    const email = `ghost-${Date.now()}@example.test`;
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_LIMITS.perAccountAndIp; i++) {
      statuses.push((await new ConsoleAgent(t.app).signIn(email, 'guess guess', ip)).statusCode);
    }
    expect(statuses).toEqual([...Array(SIGN_IN_LIMITS.perAccountAndIp).fill(401), 429]);
  });

  it('refuses an address past 30 attempts in its window, whatever the emails', async () => {
    const ip = `${freshIp()}1`;
    for (let i = 0; i < SIGN_IN_LIMITS.perIp; i++) {
      const response = await new ConsoleAgent(t.app).signIn(
        `spray${i}-${Date.now()}@example.test`,
        'guess',
        ip,
      );
      expect(response.statusCode).toBe(401);
    }
    const holder = await newHolder(t.app);
    const refused = await new ConsoleAgent(t.app).signIn(holder.email, holder.password, ip);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The operator's sign-in and links count against that address too.
    expect(
      (
        await new ConsoleAgent(t.app).request('POST', '/operator-session', {
          payload: { token: TEST_ADMIN_TOKEN },
          remoteAddress: ip,
        })
      ).statusCode,
    ).toBe(429);
    // Another address is fine.
    expect(
      (await new ConsoleAgent(t.app).signIn(holder.email, holder.password, `${freshIp()}1`)).statusCode,
    ).toBe(200);
  });

  it('counts concurrent guesses before checking them: never more than the limit get through', async () => {
    const holder = await newHolder(t.app);
    const ip = `${freshIp()}1`;
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        new ConsoleAgent(t.app).signIn(holder.email, `parallel guess ${i}`, ip),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(SIGN_IN_LIMITS.perAccountAndIp);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25 - SIGN_IN_LIMITS.perAccountAndIp);
  });

  it('takes a successful attempt back: a holder who signs in often is never locked out', async () => {
    const holder = await newHolder(t.app);
    const ip = `${freshIp()}1`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndIp + 2; i++) {
      expect((await new ConsoleAgent(t.app).signIn(holder.email, holder.password, ip)).statusCode).toBe(200);
    }
  });

  it('limits guesses of the current password through a password change too', async () => {
    const holder = await newHolder(t.app);
    const ip = `${freshIp()}1`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndIp; i++) {
      const response = await holder.agent.request('PUT', '/password', {
        payload: { current_password: `wrong ${i} wrong`, new_password: 'new password here' },
        remoteAddress: ip,
      });
      expect(response.statusCode).toBe(403);
    }
    const refused = await holder.agent.request('PUT', '/password', {
      payload: { current_password: holder.password, new_password: 'new password here' },
      remoteAddress: ip,
    });
    expect(refused.statusCode).toBe(429);
  });
});

describe('no user enumeration by work done', () => {
  /** The real hasher, counting the hashes each path computes. */
  function counting(hasher: PasswordHasher) {
    const calls = { hash: 0, verify: 0 };
    const counted: PasswordHasher = {
      async hash(password) {
        calls.hash += 1;
        return hasher.hash(password);
      },
      async verify(password, stored) {
        calls.verify += 1;
        return hasher.verify(password, stored);
      },
    };
    return { counted, calls };
  }

  it('checks one password hash for an unknown email, as for a wrong password', async () => {
    const holder = await newHolder(t.app);
    const { counted, calls } = counting(t.services.console.hasher);
    const deps = { ...t.services.console, hasher: counted, accounts: t.services.accounts.accounts };
    const attempt = (email: string, ip: string) =>
      signIn(deps, { email, password: 'definitely wrong', ip }).then(
        () => 'signed in',
        (err: { code?: unknown }) => String(err.code),
      );

    // The decoy hash is made once per hasher; take it out of the counts.
    await attempt(`warm-up-${Date.now()}@example.test`, '192.0.2.1');
    const decoyMade = calls.hash;

    const before = { ...calls };
    expect(await attempt(holder.email, '192.0.2.2')).toBe('invalid_credentials');
    const known = { hash: calls.hash - before.hash, verify: calls.verify - before.verify };

    const between = { ...calls };
    expect(await attempt(`nobody-${Date.now()}@example.test`, '192.0.2.3')).toBe('invalid_credentials');
    const unknown = { hash: calls.hash - between.hash, verify: calls.verify - between.verify };

    expect(decoyMade).toBe(1);
    expect(known).toEqual({ hash: 0, verify: 1 });
    expect(unknown).toEqual(known);
  });
});
