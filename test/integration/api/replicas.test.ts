import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { replicaEnvironment } from '../../helpers/test-config.ts';

// Two api replicas on the same Redis, store and prefix, as behind a load balancer.
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  const env = { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...replicaEnvironment('replicas') };
  a = await buildTestApp({ env });
  b = await buildTestApp({ env });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

describe('two api replicas', () => {
  it('share one rate window: 100 concurrent requests at 60/min give exactly 60 answers and 40 429s', async () => {
    const { key } = await createFundedKey(a.app, { topUp: 10_000 });
    const headers = { authorization: `Bearer ${key}` };
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? a : b).app.inject({ method: 'GET', url: '/v1/balance', headers }),
      ),
    );
    const ok = answers.filter((res) => res.statusCode === 200);
    const limited = answers.filter((res) => res.statusCode === 429);
    expect(ok).toHaveLength(60);
    expect(limited).toHaveLength(40);
    for (const res of limited) {
      expect(res.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
    }
    const remaining = ok.map((res) => Number(res.headers['x-ratelimit-remaining'])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('see a key change made through replica A on replica B within a second', async () => {
    const k = await createFundedKey(a.app, { topUp: 10_000 });
    const headers = { authorization: `Bearer ${k.key}` };
    expect((await b.app.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode).toBe(200);
    await admin(a.app, 'PATCH', `/keys/${k.keyId}`, { active: false });
    const refusedWithin = await waitUntil(
      async () => (await b.app.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode === 401,
      1_000,
    );
    expect(refusedWithin).toBe(true);
    await admin(a.app, 'DELETE', `/keys/${k.keyId}`);
  });

  it('see an account deactivated through replica B on replica A within a second', async () => {
    const k = await createFundedKey(a.app, { topUp: 10_000 });
    const headers = { authorization: `Bearer ${k.key}` };
    expect((await a.app.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode).toBe(200);
    await admin(b.app, 'PATCH', `/accounts/${k.accountId}`, { status: 'inactive' });
    const refusedWithin = await waitUntil(
      async () => (await a.app.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode === 401,
      1_000,
    );
    expect(refusedWithin).toBe(true);
  });
});

async function waitUntil(condition: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
