import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../shared/src/accounts/api-key-format.ts';
import { storedText } from '../../../helpers/store-probe.ts';
import { type AdminApp, auth, buildAdminApp, newAccount } from './admin-app.ts';

let t: AdminApp;
beforeAll(async () => {
  t = await buildAdminApp();
});
afterAll(() => t.close());

type ErrorBody = { error: { message: string; type: string; code: string; param: null } };
type KeyView = Record<string, unknown> & { id: string; state: string; last4: string };

function createKey(accountId: string, payload?: unknown) {
  return t.app.inject({
    method: 'POST',
    url: `/admin/v1/accounts/${accountId}/keys`,
    headers: auth,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

function patchKey(keyId: string, payload: unknown) {
  return t.app.inject({
    method: 'PATCH',
    url: `/admin/v1/keys/${keyId}`,
    headers: auth,
    payload: payload as object,
  });
}

function deleteKey(keyId: string) {
  return t.app.inject({ method: 'DELETE', url: `/admin/v1/keys/${keyId}`, headers: auth });
}

async function listKeys(accountId: string): Promise<KeyView[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/admin/v1/accounts/${accountId}/keys`,
    headers: auth,
  });
  expect(res.statusCode).toBe(200);
  const body = res.json<{ object: string; data: KeyView[] }>();
  expect(body.object).toBe('list');
  return body.data;
}

function expectBadField(res: { statusCode: number; json: <T>() => T }, field: string): void {
  expect(res.statusCode).toBe(400);
  const { error } = res.json<ErrorBody>();
  expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error', param: null });
  expect(error.message).toContain(`\`${field}\``);
}

describe('POST /admin/v1/accounts/{id}/keys', () => {
  it('creates a key with the spec defaults and shows the full key once', async () => {
    const accountId = await newAccount(t.app);
    const res = await createKey(accountId);
    expect(res.statusCode).toBe(201);
    const body = res.json<KeyView & { key: string }>();
    expect(body).toEqual({
      id: expect.stringMatching(/^key_/),
      account_id: accountId,
      key: expect.stringMatching(/^hk-[0-9A-Za-z]{43}$/),
      last4: body.key.slice(-4),
      name: '',
      state: 'active',
      rate_limit: 60,
      monthly_cap: null,
      allowed_ips: [],
      allowed_models: null,
      identity_injection: true,
      expires_at: null,
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const stored = await t.stores.keys.findById(body.id);
    expect(stored?.hash).toBe(hashApiKey(body.key));
    const row = await storedText(t.stores.config, 'api_keys', body.id);
    expect(row).toContain(body.id);
    expect(row).not.toContain(body.key);
    expect((await t.keyCache.lookup(hashApiKey(body.key)))?.id).toBe(body.id);
  });

  it('takes every setting, normalized', async () => {
    const accountId = await newAccount(t.app);
    const res = await createKey(accountId, {
      name: 'ci',
      rate_limit: 3000,
      monthly_cap: 250000.5,
      allowed_ips: ['::ffff:10.0.0.1', '2001:DB8:0:0:0:0:0:1'],
      allowed_models: ['openai/gpt-5', 'demo/chat'],
      identity_injection: false,
      expires_at: '2099-01-01T03:30:00+03:30',
      active: false,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'ci',
      state: 'disabled',
      rate_limit: 3000,
      monthly_cap: 250000.5,
      allowed_ips: ['10.0.0.1', '2001:db8::1'],
      allowed_models: ['openai/gpt-5', 'demo/chat'],
      identity_injection: false,
      expires_at: '2099-01-01T00:00:00.000Z',
      active: false,
    });
  });

  it.each<[unknown, string]>([
    [{ rate_limit: 0 }, 'rate_limit'],
    [{ rate_limit: 3001 }, 'rate_limit'],
    [{ rate_limit: 2.5 }, 'rate_limit'],
    [{ rate_limit: '60' }, 'rate_limit'],
    [{ monthly_cap: 0 }, 'monthly_cap'],
    [{ monthly_cap: -5 }, 'monthly_cap'],
    [{ monthly_cap: 0.0000001 }, 'monthly_cap'],
    [{ monthly_cap: 1e15 }, 'monthly_cap'],
    [{ monthly_cap: '100' }, 'monthly_cap'],
    [{ allowed_ips: ['10.0.0.0/8'] }, 'allowed_ips[0]'],
    [{ allowed_ips: ['1.2.3.4', 'localhost'] }, 'allowed_ips[1]'],
    [{ allowed_ips: '1.2.3.4' }, 'allowed_ips'],
    [{ allowed_ips: Array.from({ length: 51 }, (_, i) => `10.0.1.${i}`) }, 'allowed_ips'],
    [{ allowed_models: ['gpt-5'] }, 'allowed_models[0]'],
    [{ allowed_models: [] }, 'allowed_models'],
    [{ allowed_models: Array.from({ length: 501 }, (_, i) => `demo/m${i}`) }, 'allowed_models'],
    [{ identity_injection: 'off' }, 'identity_injection'],
    [{ expires_at: 'tomorrow' }, 'expires_at'],
    [{ expires_at: '2030-02-30T00:00:00Z' }, 'expires_at'],
    [{ active: 'true' }, 'active'],
    [{ name: 'k'.repeat(101) }, 'name'],
    [{ name: 'k'.repeat(100_000) }, 'name'],
    [{ secret: 'x' }, 'secret'],
  ])('answers 400 for %j naming `%s`', async (payload, field) => {
    const accountId = await newAccount(t.app);
    expectBadField(await createKey(accountId, payload), field);
    expect(await listKeys(accountId)).toEqual([]);
  });

  it('answers 404 account_not_found for an unknown account', async () => {
    const res = await createKey('acct_nobody');
    expect(res.statusCode).toBe(404);
    expect(res.json<ErrorBody>().error.code).toBe('account_not_found');
  });

  it('refuses the 26th active key with 409 key_limit_reached; disabled keys do not count', async () => {
    const accountId = await newAccount(t.app);
    for (let i = 0; i < 3; i++) expect((await createKey(accountId, { active: false })).statusCode).toBe(201);
    for (let i = 0; i < 25; i++) expect((await createKey(accountId)).statusCode).toBe(201);
    const res = await createKey(accountId);
    expect(res.statusCode).toBe(409);
    expect(res.json<ErrorBody>().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'key_limit_reached',
    });
    expect((await createKey(accountId, { active: false })).statusCode).toBe(201);
  });

  it('lets exactly 25 of 40 concurrent creations through', async () => {
    const accountId = await newAccount(t.app);
    const answers = await Promise.all(Array.from({ length: 40 }, () => createKey(accountId)));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(25);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    expect((await listKeys(accountId)).filter((key) => key.state === 'active')).toHaveLength(25);
  });
});

describe('GET /admin/v1/accounts/{id}/keys', () => {
  it('lists the keys without secrets, deleted keys left out', async () => {
    const accountId = await newAccount(t.app);
    const first = (await createKey(accountId, { name: 'first' })).json<KeyView & { key: string }>();
    const second = (await createKey(accountId, { name: 'second' })).json<KeyView>();
    expect((await deleteKey(second.id)).statusCode).toBe(204);
    const keys = await listKeys(accountId);
    expect(keys.map((key) => key.id)).toEqual([first.id]);
    expect(keys[0]).not.toHaveProperty('key');
    expect(keys[0]).not.toHaveProperty('hash');
    expect(JSON.stringify(keys)).not.toContain(first.key);
    expect(keys[0]?.last4).toBe(first.key.slice(-4));
  });

  it('answers 404 account_not_found for an unknown account', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/accounts/acct_nobody/keys',
      headers: auth,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json<ErrorBody>().error.code).toBe('account_not_found');
  });
});

describe('PATCH /admin/v1/keys/{id}', () => {
  it('changes any setting, effective at once on every replica', async () => {
    const accountId = await newAccount(t.app);
    const created = (await createKey(accountId)).json<KeyView & { key: string }>();
    const hash = hashApiKey(created.key);
    const other = await t.otherReplica();
    expect((await other.lookup(hash))?.rateLimit).toBe(60);

    const res = await patchKey(created.id, {
      rate_limit: 5,
      monthly_cap: 10,
      allowed_ips: ['127.0.0.1'],
      name: 'x',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: created.id,
      rate_limit: 5,
      monthly_cap: 10,
      allowed_ips: ['127.0.0.1'],
    });
    expect((await t.keyCache.lookup(hash))?.monthlyCapMicros).toBe(10_000_000n);
    await expect.poll(async () => (await other.lookup(hash))?.rateLimit, { timeout: 1_000 }).toBe(5);

    const cleared = await patchKey(created.id, {
      monthly_cap: null,
      allowed_models: ['demo/chat'],
      expires_at: null,
    });
    expect(cleared.json()).toMatchObject({ monthly_cap: null, allowed_models: ['demo/chat'], rate_limit: 5 });
  });

  it('disables and enables; a disabled key stops resolving as active on every replica', async () => {
    const accountId = await newAccount(t.app);
    const created = (await createKey(accountId)).json<KeyView & { key: string }>();
    const other = await t.otherReplica();
    await other.lookup(hashApiKey(created.key));
    expect((await patchKey(created.id, { active: false })).json()).toMatchObject({ state: 'disabled' });
    await expect
      .poll(async () => (await other.lookup(hashApiKey(created.key)))?.active, { timeout: 1_000 })
      .toBe(false);
    expect((await patchKey(created.id, { active: true })).json()).toMatchObject({ state: 'active' });
  });

  it('refuses to enable a 26th active key, and frees places of expired keys', async () => {
    const accountId = await newAccount(t.app);
    const disabled = (await createKey(accountId, { active: false })).json<KeyView>();
    for (let i = 0; i < 24; i++) await createKey(accountId);
    // The 25th active key expires a second after it is made: the refusal comes first (however slow
    // the machine made the 24 before it), then the wait for its expiry.
    const soon = new Date(Date.now() + 1_000).toISOString();
    const expiring = (await createKey(accountId, { expires_at: soon })).json<KeyView>();
    const refused = await patchKey(disabled.id, { active: true });
    expect(refused.statusCode).toBe(409);
    expect(refused.json<ErrorBody>().error.code).toBe('key_limit_reached');
    await expect
      .poll(async () => (await listKeys(accountId)).find((key) => key.id === expiring.id)?.state, {
        timeout: 5_000,
        interval: 100,
      })
      .toBe('expired');
    expect((await patchKey(disabled.id, { active: true })).statusCode).toBe(200);
    // The expired key gave its place away: extending it now needs one.
    const extend = await patchKey(expiring.id, { expires_at: '2099-01-01T00:00:00Z' });
    expect(extend.statusCode).toBe(409);
  });

  it('lets exactly as many concurrent re-activations through as there are places', async () => {
    const accountId = await newAccount(t.app);
    const idle = await Promise.all(
      Array.from({ length: 10 }, async () => (await createKey(accountId, { active: false })).json<KeyView>()),
    );
    for (let i = 0; i < 22; i++) await createKey(accountId);
    const answers = await Promise.all(idle.map((key) => patchKey(key.id, { active: true })));
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(3);
    expect(answers.filter((res) => res.statusCode === 409)).toHaveLength(7);
  });

  it.each<[unknown, string]>([
    [{ rate_limit: 99999 }, 'rate_limit'],
    [{ allowed_ips: ['::1/128'] }, 'allowed_ips[0]'],
    [{ hash: 'x' }, 'hash'],
    [{ key: 'hk-x' }, 'key'],
  ])('answers 400 for %j naming `%s`', async (payload, field) => {
    const accountId = await newAccount(t.app);
    const created = (await createKey(accountId)).json<KeyView>();
    expectBadField(await patchKey(created.id, payload), field);
  });

  it('answers 404 key_not_found for an unknown or deleted key', async () => {
    const missing = await patchKey('key_nobody', { name: 'x' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json<ErrorBody>().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'key_not_found',
    });
    const accountId = await newAccount(t.app);
    const created = (await createKey(accountId)).json<KeyView>();
    await deleteKey(created.id);
    expect((await patchKey(created.id, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('DELETE /admin/v1/keys/{id}', () => {
  it('deletes once (204), frees a place, and the key stops resolving as usable on every replica', async () => {
    const accountId = await newAccount(t.app);
    const created = (await createKey(accountId)).json<KeyView & { key: string }>();
    for (let i = 0; i < 24; i++) await createKey(accountId);
    const other = await t.otherReplica();
    await other.lookup(hashApiKey(created.key));
    const res = await deleteKey(created.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.keyCache.lookup(hashApiKey(created.key)))?.deleted).toBe(true);
    await expect
      .poll(async () => (await other.lookup(hashApiKey(created.key)))?.deleted, { timeout: 1_000 })
      .toBe(true);
    expect((await createKey(accountId)).statusCode).toBe(201);
    const again = await deleteKey(created.id);
    expect(again.statusCode).toBe(404);
    expect(again.json<ErrorBody>().error.code).toBe('key_not_found');
  });
});

describe('operator authentication', () => {
  it('answers 401 without the token on every key route', async () => {
    for (const [method, url] of [
      ['POST', '/admin/v1/accounts/acct_x/keys'],
      ['GET', '/admin/v1/accounts/acct_x/keys'],
      ['PATCH', '/admin/v1/keys/key_x'],
      ['DELETE', '/admin/v1/keys/key_x'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: 'Bearer nope' }, payload: {} });
      expect(res.statusCode).toBe(401);
    }
  });

  it('does not exist (404) when no admin token is configured', async () => {
    const bare = await buildAdminApp({ adminToken: undefined });
    try {
      for (const [method, url] of [
        ['POST', '/admin/v1/accounts/acct_x/keys'],
        ['GET', '/admin/v1/accounts/acct_x/keys'],
        ['PATCH', '/admin/v1/keys/key_x'],
        ['DELETE', '/admin/v1/keys/key_x'],
      ] as const) {
        const res = await bare.app.inject({ method, url, headers: auth, payload: {} });
        expect(res.statusCode).toBe(404);
      }
    } finally {
      await bare.close();
    }
  });
});
