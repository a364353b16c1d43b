/**
 * The operator API's bearer token is limited per client IP like the console's operator sign-in,
 * which takes the same token: past 30 wrong ones in the window, every request of that address is
 * 429 in the error envelope with `Retry-After`, the right token included; other addresses are not
 * affected. The count lives in Redis, so two api replicas share it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMITS } from '../../../../api/src/console/sign-in-limiter.ts';
import { TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { replicaEnvironment } from '../../../helpers/test-config.ts';

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  // Two replicas on the same Redis, store and prefix, as behind a load balancer.
  const env = { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...replicaEnvironment('token-limit') };
  a = await buildTestApp({ env });
  b = await buildTestApp({ env });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

let network = 0;
function freshIp(): string {
  network += 1;
  return `203.0.113.${network}`;
}

function listAccounts(app: TestApp, token: string, remoteAddress: string) {
  return app.app.inject({
    method: 'GET',
    url: '/admin/v1/accounts?email=nobody%40example.test',
    headers: { authorization: `Bearer ${token}` },
    remoteAddress,
  });
}

describe('the operator API token limit', () => {
  it('refuses an address past 30 wrong tokens, across replicas, the right token included', async () => {
    const ip = freshIp();
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        listAccounts(i % 2 === 0 ? a : b, `wrong-token-${i}-0123456789abcdef`, ip).then(
          (response) => response.statusCode,
        ),
      ),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(SIGN_IN_LIMITS.perIp);
    expect(statuses.filter((status) => status === 429)).toHaveLength(300 - SIGN_IN_LIMITS.perIp);

    for (const replica of [a, b]) {
      const refused = await listAccounts(replica, TEST_ADMIN_TOKEN, ip);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({
        error: {
          message: expect.stringMatching(
            /^Too many wrong operator tokens from this address; retry after \d+ seconds\.$/,
          ),
          type: 'rate_limit_exceeded',
          code: 'rate_limit_exceeded',
          param: null,
        },
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_LIMITS.windowMs / 1000);
    }
    // The console's operator sign-in shares the address's count.
    const signIn = await a.app.inject({
      method: 'POST',
      url: '/console/api/operator-session',
      headers: { 'x-requested-with': 'console' },
      payload: { token: TEST_ADMIN_TOKEN },
      remoteAddress: ip,
    });
    expect(signIn.statusCode).toBe(429);
    // Another address is not affected.
    expect((await listAccounts(b, TEST_ADMIN_TOKEN, freshIp())).statusCode).toBe(200);
  });

  it('never limits the right token, however many requests it makes', async () => {
    const ip = freshIp();
    const statuses = await Promise.all(
      Array.from({ length: 2 * SIGN_IN_LIMITS.perIp }, () =>
        listAccounts(a, TEST_ADMIN_TOKEN, ip).then((response) => response.statusCode),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    // A few wrong ones among them still answer 401, under the limit.
    expect((await listAccounts(a, 'not-the-token-0123456789abcdef', ip)).statusCode).toBe(401);
    expect((await listAccounts(a, TEST_ADMIN_TOKEN, ip)).statusCode).toBe(200);
  });
});
