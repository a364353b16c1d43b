import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, TRUST_PROXY: '10.9.9.9' } });
});
afterAll(() => t.close());

describe('client address behind a trusted proxy', () => {
  it('takes the client address from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const { key } = await createFundedKey(t.app, {
      topUp: 5_000,
      settings: { allowed_ips: ['203.0.113.7'] },
    });
    const headers = { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.7' };
    const viaProxy = await t.app.inject({
      method: 'GET',
      url: '/v1/balance',
      headers,
      remoteAddress: '10.9.9.9',
    });
    expect(viaProxy.statusCode).toBe(200);
    const spoofed = await t.app.inject({
      method: 'GET',
      url: '/v1/balance',
      headers,
      remoteAddress: '10.9.9.8',
    });
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json()).toMatchObject({ error: { code: 'ip_not_allowed' } });
  });
});

describe('CORS for browser clients', () => {
  it('answers a preflight without a key and exposes the rate-limit headers', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/chat/completions',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');

    const { key } = await createFundedKey(t.app, { topUp: 5_000 });
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/balance',
      headers: { authorization: `Bearer ${key}`, origin: 'https://app.example' },
    });
    const exposed = String(res.headers['access-control-expose-headers'])
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(
      expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-request-id', 'retry-after']),
    );
  });
});

describe('no CORS for the operator API', () => {
  const corsHeaders = (headers: Record<string, unknown>) =>
    Object.keys(headers).filter((name) => name.startsWith('access-control-'));

  it('answers a preflight to /admin/v1 without any CORS header', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/admin/v1/accounts',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(corsHeaders(preflight.headers)).toEqual([]);
    expect(preflight.statusCode).toBe(404);
    expect(preflight.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
  });

  it('answers a simple request to /admin/v1 without any CORS header', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/accounts?email=nobody@example.test',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
  });

  it('keeps CORS on /v1, for the public model list too', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { origin: 'https://app.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
  });
});
