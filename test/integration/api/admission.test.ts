import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, MIN_REQUIRED_BALANCE: '1000' } });
});
afterAll(() => t.close());

type ErrorBody = { error: { type: string; code: string; message: string; param: null } };

async function balance(headers: Record<string, string>, query = '', remoteAddress?: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v1/balance${query}`,
    headers,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

function expectError(
  res: { statusCode: number; json(): unknown },
  status: number,
  type: string,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect((res.json() as ErrorBody).error).toMatchObject({ type, code, param: null });
}

describe('key carriers', () => {
  it('accepts the key from each carrier', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 5_000 });
    const carriers: Array<Record<string, string>> = [
      { authorization: `Bearer ${key}` },
      { 'x-api-key': key },
      { 'x-goog-api-key': key },
      { 'xi-api-key': key },
      { 'x-key': key },
    ];
    for (const headers of carriers)
      expect((await balance(headers)).statusCode, JSON.stringify(headers)).toBe(200);
    expect((await balance({}, `?key=${key}`)).statusCode).toBe(200);
  });

  it('uses the first carrier in priority order, even when a later one holds a valid key', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 5_000 });
    expectError(
      await balance({ authorization: 'Bearer hk-wrong', 'x-api-key': key }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
    expect((await balance({ authorization: `Bearer ${key}`, 'x-api-key': 'hk-wrong' })).statusCode).toBe(200);
    expectError(
      await balance({ 'x-key': 'hk-wrong' }, `?key=${key}`),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
  });

  it('refuses odd keys with 401, never 500', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 5_000 });
    const odd: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: '   ' },
      { authorization: `Basic ${Buffer.from(`u:${key}`).toString('base64')}` },
      { authorization: `Bearer ${key} ${key}` },
      { 'x-api-key': `sk-${key.slice(3)}` },
      { 'x-api-key': 'hk-' },
      { 'x-api-key': `${key}\u0000` },
    ];
    for (const headers of odd) {
      const res = await balance(headers);
      expectError(res, 401, 'invalid_api_key', 'invalid_api_key');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('checks 1 to 7', () => {
  it('check 2: refuses unknown, disabled, expired and deleted keys and inactive accounts', async () => {
    const unknown = await balance({ authorization: `Bearer hk-${'x'.repeat(43)}` });
    expectError(unknown, 401, 'invalid_api_key', 'invalid_api_key');

    const disabled = await createFundedKey(t.app, { topUp: 5_000 });
    await admin(t.app, 'PATCH', `/keys/${disabled.keyId}`, { active: false });
    expectError(
      await balance({ authorization: `Bearer ${disabled.key}` }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
    await admin(t.app, 'PATCH', `/keys/${disabled.keyId}`, { active: true });
    expect((await balance({ authorization: `Bearer ${disabled.key}` })).statusCode).toBe(200);

    const expired = await createFundedKey(t.app, {
      topUp: 5_000,
      settings: { expires_at: '2020-01-01T00:00:00Z' },
    });
    expectError(
      await balance({ authorization: `Bearer ${expired.key}` }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );

    const deleted = await createFundedKey(t.app, { topUp: 5_000 });
    await admin(t.app, 'DELETE', `/keys/${deleted.keyId}`);
    expectError(
      await balance({ authorization: `Bearer ${deleted.key}` }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );

    const inactive = await createFundedKey(t.app, { topUp: 5_000 });
    await admin(t.app, 'PATCH', `/accounts/${inactive.accountId}`, { status: 'inactive' });
    expectError(
      await balance({ authorization: `Bearer ${inactive.key}` }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
  });

  it('check 3: only listed addresses, IPv4-mapped IPv6 included, with rate headers on the 403', async () => {
    const { key } = await createFundedKey(t.app, {
      topUp: 5_000,
      settings: { allowed_ips: ['10.1.2.3', '2001:db8::1'] },
    });
    const headers = { authorization: `Bearer ${key}` };
    expect((await balance(headers, '', '10.1.2.3')).statusCode).toBe(200);
    expect((await balance(headers, '', '::ffff:10.1.2.3')).statusCode).toBe(200);
    expect((await balance(headers, '', '2001:0db8:0:0::1')).statusCode).toBe(200);
    const refused = await balance(headers, '', '10.1.2.4');
    expectError(refused, 403, 'ip_not_allowed', 'ip_not_allowed');
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    expect(refused.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('does not believe X-Forwarded-For from an untrusted peer', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 5_000, settings: { allowed_ips: ['10.1.2.3'] } });
    const res = await balance(
      { authorization: `Bearer ${key}`, 'x-forwarded-for': '10.1.2.3' },
      '',
      '192.0.2.9',
    );
    expectError(res, 403, 'ip_not_allowed', 'ip_not_allowed');
  });

  it('check 4: counts down, then 429 with Retry-After, for every authenticated endpoint', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 5_000, settings: { rate_limit: 3 } });
    const headers = { authorization: `Bearer ${key}` };
    const remaining = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await t.app.inject({ method: 'GET', url: i === 1 ? '/v1/usage' : '/v1/balance', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await balance(headers);
    expectError(limited, 429, 'rate_limit_exceeded', 'rate_limit_exceeded');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-request-id']).toMatch(/^req_/);
  });

  it('check 5: 402 insufficient_quota below the minimum balance', async () => {
    const poor = await createFundedKey(t.app, { topUp: 999 });
    expectError(
      await balance({ authorization: `Bearer ${poor.key}` }),
      402,
      'insufficient_quota',
      'insufficient_quota',
    );
    await admin(t.app, 'POST', `/accounts/${poor.accountId}/topups`, { amount: 1 });
    expect((await balance({ authorization: `Bearer ${poor.key}` })).statusCode).toBe(200);
  });

  it('check 6: 402 spend_limit_reached once the month spend reaches the cap', async () => {
    const capped = await createFundedKey(t.app, { topUp: 100_000, settings: { monthly_cap: 50 } });
    await t.services.billing.settle({
      requestId: `req_cap_${capped.keyId}`,
      accountId: capped.accountId,
      keyId: capped.keyId,
      model: 'demo/chat',
      costMicros: 50_000_000n,
      usage: { inputTokens: 10, outputTokens: 10 },
    });
    expectError(
      await balance({ authorization: `Bearer ${capped.key}` }),
      402,
      'spend_limit_reached',
      'spend_limit_reached',
    );
  });

  it('check 7: 403 model_not_allowed for a model outside the key list, by id or alias', async () => {
    const k = await createFundedKey(t.app, { topUp: 5_000, settings: { allowed_models: ['demo/chat'] } });
    const chat = (model: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${k.key}` },
        payload: { model, messages: [{ role: 'user', content: 'hi' }] },
      });
    expect((await chat('demo/chat')).statusCode).toBe(200);
    const refused = await chat('demo/chat-reasoning');
    expectError(refused, 403, 'permission_error', 'model_not_allowed');
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    await t.services.billing.flush(); // the charge is written after the answer, in a batch
    const ledger = await admin<{ data: Array<{ kind: string }> }>(
      t.app,
      'GET',
      `/accounts/${k.accountId}/ledger`,
    );
    expect(ledger.data.map((e) => e.kind).sort()).toEqual(['charge', 'topup']);
  });

  it('applies the checks in the spec order', async () => {
    // A disabled key from a blocked IP: 401, not 403.
    const a = await createFundedKey(t.app, {
      topUp: 5_000,
      settings: { allowed_ips: ['10.0.0.1'], active: false },
    });
    expectError(
      await balance({ authorization: `Bearer ${a.key}` }, '', '10.0.0.2'),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
    // A blocked IP over its rate limit: 403, not 429.
    const b = await createFundedKey(t.app, {
      topUp: 5_000,
      settings: { allowed_ips: ['10.0.0.1'], rate_limit: 1 },
    });
    await balance({ authorization: `Bearer ${b.key}` }, '', '10.0.0.1');
    expectError(
      await balance({ authorization: `Bearer ${b.key}` }, '', '10.0.0.2'),
      403,
      'ip_not_allowed',
      'ip_not_allowed',
    );
    // Over the rate limit with an empty wallet: 429, not 402.
    const c = await createFundedKey(t.app, { topUp: 0, settings: { rate_limit: 1 } });
    expectError(
      await balance({ authorization: `Bearer ${c.key}` }),
      402,
      'insufficient_quota',
      'insufficient_quota',
    );
    expectError(
      await balance({ authorization: `Bearer ${c.key}` }),
      429,
      'rate_limit_exceeded',
      'rate_limit_exceeded',
    );
  });

  it('charges nothing for refused requests', async () => {
    const k = await createFundedKey(t.app, { topUp: 999, settings: { rate_limit: 2 } });
    for (let i = 0; i < 4; i += 1) await balance({ authorization: `Bearer ${k.key}` });
    const ledger = await admin<{ data: Array<{ kind: string }> }>(
      t.app,
      'GET',
      `/accounts/${k.accountId}/ledger`,
    );
    expect(ledger.data.map((e) => e.kind)).toEqual(['topup']);
    expect(await t.services.billing.checkLedger()).toEqual([]);
  });
});

describe('request logs', () => {
  it('bind the key and account to every line of an admitted request, never the key itself', async () => {
    const k = await createFundedKey(t.app, { topUp: 5_000 });
    const res = await balance({ authorization: `Bearer ${k.key}` });
    const line = t
      .logs()
      .find((l) => l.requestId === res.headers['x-request-id'] && l.msg === 'request completed');
    expect(line).toMatchObject({ keyId: k.keyId, accountId: k.accountId, status: 200 });
    expect(JSON.stringify(t.logs())).not.toContain(k.key);
  });
});

describe('GET /v1/balance and GET /v1/usage', () => {
  it('answers the balance record in Toman', async () => {
    const k = await createFundedKey(t.app, { topUp: 12_345.5 });
    const res = await balance({ authorization: `Bearer ${k.key}` });
    expect(res.json()).toEqual({ object: 'balance', currency: 'IRT', balance: 12_345.5, min_required: 1000 });
  });

  it('answers usage rows per day and model over every key of the account', async () => {
    const k = await createFundedKey(t.app, { topUp: 100_000 });
    const second = await admin<{ id: string }>(t.app, 'POST', `/accounts/${k.accountId}/keys`, {});
    const settle = (id: string, keyId: string, model: string, costMicros: bigint) =>
      t.services.billing.settle({
        requestId: id,
        accountId: k.accountId,
        keyId,
        model,
        costMicros,
        usage: { inputTokens: 100, outputTokens: 20 },
      });
    await settle(`u1-${k.keyId}`, k.keyId, 'demo/chat', 1_500_000n);
    await settle(`u2-${k.keyId}`, second.id, 'demo/chat', 500_000n);
    await settle(`u3-${k.keyId}`, k.keyId, 'openai/gpt-4o', 2_000_000n);
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/usage?days=1',
      headers: { authorization: `Bearer ${k.key}` },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ object: string; currency: string; data: Array<Record<string, unknown>> }>();
    expect(body).toMatchObject({ object: 'list', currency: 'IRT' });
    expect(body.data.map(({ date: _d, ...row }) => row)).toEqual([
      { model: 'demo/chat', requests: 2, input_tokens: 200, output_tokens: 40, cost: 2 },
      { model: 'openai/gpt-4o', requests: 1, input_tokens: 100, output_tokens: 20, cost: 2 },
    ]);
    expect(body.data[0]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const after = await balance({ authorization: `Bearer ${k.key}` });
    expect(after.json<{ balance: number }>().balance).toBe(100_000 - 4);
  });

  it('refuses a look-back outside 1 to 90 days with 400', async () => {
    const k = await createFundedKey(t.app, { topUp: 5_000, settings: { rate_limit: 100 } });
    for (const days of ['0', '91', 'abc', '1.5', '-3']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/usage?days=${days}`,
        headers: { authorization: `Bearer ${k.key}` },
      });
      expectError(res, 400, 'invalid_request_error', 'invalid_request_error');
      expect(res.json<ErrorBody>().error.message).toMatch(/days/);
    }
    const dflt = await t.app.inject({
      method: 'GET',
      url: '/v1/usage',
      headers: { authorization: `Bearer ${k.key}` },
    });
    expect(dflt.statusCode).toBe(200);
  });

  it('authenticates before it validates the query', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/v1/usage?days=0' }),
      401,
      'invalid_api_key',
      'invalid_api_key',
    );
  });
});
