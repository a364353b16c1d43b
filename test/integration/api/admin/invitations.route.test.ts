import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, TRUST_PROXY: '127.0.0.1' } });
});

afterAll(async () => {
  await t?.close();
});

const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

async function newAccount(): Promise<string> {
  return (
    await admin<{ id: string }>(t.app, 'POST', '/accounts', {
      email: `inv-${Date.now()}-${Math.random()}@example.test`,
    })
  ).id;
}

describe('POST /admin/v1/accounts/{id}/invitations', () => {
  it('answers a one-time link on the origin the request came to, an invitation by default', async () => {
    const id = await newAccount();
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${id}/invitations`,
      headers: { ...auth, host: 'gw.internal:8080' },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ url: string; expires_at: string; purpose: string }>();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'purpose', 'url']);
    expect(body.url).toMatch(/^http:\/\/gw\.internal:8080\/console\/invite#token=[\w-]{43}$/);
    expect(body.purpose).toBe('invite');
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
  });

  it('takes a trusted proxy’s scheme and host, and makes a reset link of one hour', async () => {
    const id = await newAccount();
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${id}/invitations`,
      headers: { ...auth, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'gateway.example.com' },
      payload: { purpose: 'reset' },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ url: string; expires_at: string; purpose: string }>();
    expect(body.url).toMatch(/^https:\/\/gateway\.example\.com\/console\/invite#token=/);
    expect(body.purpose).toBe('reset');
    expect(Date.parse(body.expires_at) - Date.now()).toBeLessThanOrEqual(3_600_000);
  });

  it('uses PUBLIC_BASE_URL when configured', async () => {
    const other = await buildTestApp({
      env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, PUBLIC_BASE_URL: 'https://console.example.org/gw/' },
    });
    try {
      const id = (await admin<{ id: string }>(other.app, 'POST', '/accounts', { email: 'base@example.test' }))
        .id;
      const body = await admin<{ url: string }>(other.app, 'POST', `/accounts/${id}/invitations`, {});
      expect(body.url).toMatch(/^https:\/\/console\.example\.org\/gw\/console\/invite#token=/);
    } finally {
      await other.close();
    }
  });

  it('refuses an unknown account (404), a bad purpose or field (400), a missing token (401)', async () => {
    const id = await newAccount();
    const post = (url: string, payload?: unknown, headers: Record<string, string> = auth) =>
      t.app.inject({
        method: 'POST',
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const missing = await post('/admin/v1/accounts/acct_missing/invitations', {});
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('account_not_found');
    expect((await post(`/admin/v1/accounts/${id}/invitations`, { purpose: 'root' })).statusCode).toBe(400);
    expect((await post(`/admin/v1/accounts/${id}/invitations`, { purpose: 'reset', x: 1 })).statusCode).toBe(
      400,
    );
    expect((await post(`/admin/v1/accounts/${id}/invitations`, {}, {})).statusCode).toBe(401);
  });

  it('leaves the answer of POST /admin/v1/accounts as it was: the account alone', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: auth,
      payload: { email: `plain-${Date.now()}@example.test`, name: 'Plain' },
    });
    expect(response.statusCode).toBe(201);
    expect(Object.keys(response.json()).sort()).toEqual([
      'balance',
      'created_at',
      'email',
      'id',
      'name',
      'price_multiplier',
      'status',
    ]);
  });

  it('does not exist without ADMIN_TOKEN', async () => {
    const bare = await buildTestApp();
    try {
      const response = await bare.app.inject({
        method: 'POST',
        url: '/admin/v1/accounts/acct_x/invitations',
      });
      expect(response.statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
