import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import { type AdminApp, auth, buildAdminApp, newAccount } from './admin-app.ts';

let t: AdminApp;
beforeAll(async () => {
  t = await buildAdminApp();
});
afterAll(() => t.close());

type ErrorBody = { error: { message: string; type: string; code: string; param: null } };

function post(payload: unknown, headers: Record<string, string> = auth) {
  return t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers, payload: payload as object });
}

describe('POST /admin/v1/accounts', () => {
  it('opens an active account with a zero balance', async () => {
    const res = await post({ email: 'Ada@Example.com', name: 'Ada' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^acct_/),
      email: 'ada@example.com',
      name: 'Ada',
      status: 'active',
      balance: 0,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
  });

  it('answers 409 account_exists for an email already used, whatever its case', async () => {
    await post({ email: 'dup@example.com' });
    const res = await post({ email: 'DUP@example.com', name: 'again' });
    expect(res.statusCode).toBe(409);
    expect(res.json<ErrorBody>().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'account_exists',
    });
  });

  it.each<[string, unknown, string]>([
    ['a missing email', { name: 'x' }, 'email'],
    ['an invalid email', { email: 'not-an-email' }, 'email'],
    ['an email with spaces', { email: ' a@example.com' }, 'email'],
    ['a number as email', { email: 42 }, 'email'],
    ['an oversized email', { email: `${'a'.repeat(250)}@example.com` }, 'email'],
    ['an oversized name', { email: 'n@example.com', name: 'n'.repeat(101) }, 'name'],
    ['an unknown field', { email: 'u@example.com', status: 'inactive' }, 'status'],
  ])('answers 400 naming the field for %s', async (_, payload, field) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    const { error } = res.json<ErrorBody>();
    expect(error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_request_error',
      param: null,
    });
    expect(error.message).toContain(`\`${field}\``);
  });

  it('answers 400 for malformed JSON and for a missing body', async () => {
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(malformed.statusCode).toBe(400);
    const empty = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth });
    expect(empty.statusCode).toBe(400);
    expect(empty.json<ErrorBody>().error.message).toContain('`email`');
  });
});

describe('GET /admin/v1/accounts?email=', () => {
  it('finds the account by email, whatever its case, with its balance; an empty list otherwise', async () => {
    const id = await newAccount(t.app, 'found@example.com');
    t.balances.set(id, 3_000_000n);
    const res = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/accounts?email=FOUND%40example.com',
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      object: 'list',
      data: [expect.objectContaining({ id, email: 'found@example.com', balance: 3 })],
    });
    const none = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/accounts?email=nobody%40example.com',
      headers: auth,
    });
    expect(none.json()).toEqual({ object: 'list', data: [] });
  });

  it('answers 400 without an email or with a malformed one', async () => {
    for (const url of ['/admin/v1/accounts', '/admin/v1/accounts?email=not-an-email']) {
      const res = await t.app.inject({ method: 'GET', url, headers: auth });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<ErrorBody>().error.type).toBe('invalid_request_error');
    }
  });
});

describe('GET /admin/v1/accounts/{id}', () => {
  it('answers the account with its wallet balance in Toman', async () => {
    const id = await newAccount(t.app, 'rich@example.com');
    t.balances.set(id, 12_500_001n);
    const res = await t.app.inject({ method: 'GET', url: `/admin/v1/accounts/${id}`, headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      email: 'rich@example.com',
      name: null,
      status: 'active',
      balance: 12.500001,
    });
  });

  it('answers 404 account_not_found for an unknown id, 400 for an oversized one', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acct_nobody', headers: auth });
    expect(res.statusCode).toBe(404);
    expect(res.json<ErrorBody>().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'account_not_found',
    });
    const long = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/accounts/${'x'.repeat(65)}`,
      headers: auth,
    });
    expect(long.statusCode).toBe(400);
    expect(long.json<ErrorBody>().error.message).toContain('`id`');
  });
});

describe('PATCH /admin/v1/accounts/{id}', () => {
  function patch(id: string, payload: unknown) {
    return t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/accounts/${id}`,
      headers: auth,
      payload: payload as object,
    });
  }

  it('deactivates and reactivates, dropping the account keys from every replica cache at once', async () => {
    const id = await newAccount(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${id}/keys`,
      headers: auth,
    });
    const hash = hashApiKey(created.json<{ key: string }>().key);
    const other = await t.otherReplica();
    expect((await other.lookup(hash))?.accountActive).toBe(true);
    expect((await t.keyCache.lookup(hash))?.accountActive).toBe(true);

    const res = await patch(id, { status: 'inactive' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'inactive' });
    expect((await t.keyCache.lookup(hash))?.accountActive).toBe(false);
    await expect.poll(async () => (await other.lookup(hash))?.accountActive, { timeout: 1_000 }).toBe(false);

    expect((await patch(id, { status: 'active' })).json()).toMatchObject({ status: 'active' });
    expect((await t.keyCache.lookup(hash))?.accountActive).toBe(true);
  });

  it.each<[string, unknown, string]>([
    ['an unknown status', { status: 'frozen' }, 'status'],
    ['a missing status', {}, 'status'],
    ['an unknown field', { status: 'active', email: 'x@example.com' }, 'email'],
  ])('answers 400 naming the field for %s', async (_, payload, field) => {
    const id = await newAccount(t.app);
    const res = await patch(id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json<ErrorBody>().error.message).toContain(`\`${field}\``);
  });

  it('answers 404 account_not_found for an unknown id', async () => {
    const res = await patch('acct_nobody', { status: 'inactive' });
    expect(res.statusCode).toBe(404);
    expect(res.json<ErrorBody>().error.code).toBe('account_not_found');
  });
});

describe('operator authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789abcdefgh' }],
    ['another scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ])('answers 401 with %s, before looking at the body', async (_, headers) => {
    const res = await post({ nonsense: true }, headers as Record<string, string>);
    expect(res.statusCode).toBe(401);
    expect(res.json<ErrorBody>().error).toMatchObject({ type: 'invalid_api_key' });
    const get = await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acct_x', headers });
    expect(get.statusCode).toBe(401);
  });

  it('does not exist (404) when no admin token is configured', async () => {
    const bare = await buildAdminApp({ adminToken: undefined });
    try {
      for (const [method, url] of [
        ['POST', '/admin/v1/accounts'],
        ['GET', '/admin/v1/accounts/acct_x'],
        ['PATCH', '/admin/v1/accounts/acct_x'],
      ] as const) {
        const res = await bare.app.inject({
          method,
          url,
          headers: auth,
          payload: { email: 'a@example.com' },
        });
        expect(res.statusCode).toBe(404);
        expect(res.json<ErrorBody>().error.type).toBe('invalid_request_error');
      }
    } finally {
      await bare.close();
    }
  });
});
