import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLimiter } from '../../../../api/src/console/sign-in-limiter.ts';
import { registerErrorHandling } from '../../../../api/src/plugins/error-handler.ts';
import { walletRoutes } from '../../../../api/src/routes/admin/wallet.route.ts';
import { MAX_JSON_DEPTH } from '../../../../api/src/schemas/json-body.ts';
import {
  type BillingFixture,
  billingFixture,
  freshId,
  testClock,
} from '../../shared/billing/billing-fixture.ts';

const TOKEN = 'admin-token-for-tests-0123456789';
const clock = testClock('2026-05-10T12:00:00Z');
const accounts = new Set<string>();
let fx: BillingFixture;
let app: FastifyInstance;

async function buildApp(adminToken: string | undefined): Promise<FastifyInstance> {
  const instance = Fastify();
  registerErrorHandling(instance);
  await instance.register(walletRoutes, {
    prefix: '/admin/v1',
    billing: fx.billing,
    adminToken,
    tokenLimiter: createSignInLimiter({ redis: fx.redis, keyPrefix: `${fx.keyPrefix}console:` }),
    accountExists: async (id) => accounts.has(id),
  });
  await instance.ready();
  return instance;
}

beforeAll(async () => {
  fx = await billingFixture({ clock });
  app = await buildApp(TOKEN);
});
afterEach(async () => {
  expect(await fx.billing.checkLedger()).toEqual([]);
});
afterAll(async () => {
  await app.close();
  await fx.close();
});

function newAccount(): string {
  const id = freshId('acct');
  accounts.add(id);
  return id;
}

const auth = { authorization: `Bearer ${TOKEN}` };

function topUp(accountId: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: `/admin/v1/accounts/${accountId}/topups`,
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /admin/v1/accounts/{id}/topups', () => {
  it('credits the wallet and answers 201 with the entry and the balance', async () => {
    const id = newAccount();
    const response = await topUp(id, { amount: 12.5, reference: 'invoice 42' });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      entry: {
        id: expect.stringContaining(id),
        kind: 'topup',
        amount: 12.5,
        model: null,
        key_id: null,
        reference: 'invoice 42',
        created_at: '2026-05-10T12:00:00.000Z',
        state: 'applied',
      },
      balance: 12.5,
    });
    expect((await topUp(id, { amount: 0.25 })).json().balance).toBe(12.75);
  });

  it('stores an empty or blank reference as none', async () => {
    const id = newAccount();
    for (const reference of ['', '   ']) {
      const response = await topUp(id, { amount: 1, reference });
      expect(response.statusCode).toBe(201);
      expect(response.json().entry.reference).toBeNull();
    }
    const ledger = await fx.billing.listLedger(id, { limit: 10 });
    expect(ledger.map((entry) => entry.reference)).toEqual([null, null]);
  });

  it('replays a request with the same Idempotency-Key without a second credit', async () => {
    const id = newAccount();
    const first = await topUp(id, { amount: 100 }, { 'idempotency-key': 'pay-1' });
    const again = await topUp(id, { amount: 100 }, { 'idempotency-key': 'pay-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await fx.billing.listLedger(id, { limit: 10 })).toHaveLength(1);
    const conflict = await topUp(id, { amount: 101 }, { 'idempotency-key': 'pay-1' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('idempotency_key_reused');
    expect(await fx.billing.balanceOf(id)).toBe(100_000_000n);
  });

  it('credits the amount exactly as written and answers it exactly, up to 15 significant digits', async () => {
    const id = newAccount();
    const response = await topUp(id, '{"amount": 999999999.999999}');
    expect(response.statusCode).toBe(201);
    // The answer's text, not a parsed double: it carries the amount as it was written.
    expect(response.body).toContain('"amount":999999999.999999');
    expect(await fx.billing.balanceOf(id)).toBe(999_999_999_999_999n);
    const large = await topUp(id, '{"amount": 123456789012.125}');
    expect(large.statusCode).toBe(201);
    expect(large.body).toContain('"amount":123456789012.125');
    expect((await topUp(id, '{"amount": 1.5e-3}')).statusCode).toBe(201);
    expect(await fx.billing.balanceOf(id)).toBe(999_999_999_999_999n + 123_456_789_012_125_000n + 1_500n);
  });

  it.each([
    ['18 significant digits', '{"amount": 123456789012.123456}'],
    ['16 significant digits', '{"amount": 1234567890.123456}'],
    ['16 significant digits of a round amount', '{"amount": 999999999999.9999}'],
  ])('refuses an amount of %s, which a JSON answer could not carry exactly', async (_, payload) => {
    const id = newAccount();
    const response = await topUp(id, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toBe(
      'Invalid body field `amount`: must have at most 6 decimals and 15 significant digits.',
    );
    expect(await fx.billing.balanceOf(id)).toBe(0n);
  });

  it.each([
    ['zero', '{"amount": 0}'],
    ['negative', '{"amount": -5}'],
    ['7 decimals', '{"amount": 1.1234567}'],
    ['7 decimals beyond double precision', '{"amount": 123456789012.1234567}'],
    ['a string', '{"amount": "12"}'],
    ['null', '{"amount": null}'],
    ['too large', '{"amount": 1000000000000.5}'],
    ['far too large', '{"amount": 1e13}'],
    ['missing', '{"reference": "x"}'],
  ])('refuses an amount that is %s with 400 naming `amount`', async (_, payload) => {
    const id = newAccount();
    const response = await topUp(id, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param: null });
    expect(response.json().error.message).toContain('`amount`');
    expect(await fx.billing.balanceOf(id)).toBe(0n);
  });

  it('refuses other bad input with 400 naming the field', async () => {
    const id = newAccount();
    const long = await topUp(id, { amount: 1, reference: 'x'.repeat(201) });
    expect(long.json().error.message).toContain('`reference`');
    const unknown = await topUp(id, { amount: 1, currency: 'USD' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('`currency`');
    const key = await topUp(id, { amount: 1 }, { 'idempotency-key': 'k'.repeat(201) });
    expect(key.statusCode).toBe(400);
    expect(key.json().error.message).toContain('idempotency-key');
    const broken = await topUp(id, '{"amount": 1');
    expect(broken.statusCode).toBe(400);
    const none = await app.inject({ method: 'POST', url: `/admin/v1/accounts/${id}/topups`, headers: auth });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.message).toContain('`amount`');
    expect(await fx.billing.balanceOf(id)).toBe(0n);
  });

  it('refuses a body nested deeper than the JSON depth limit before parsing it', async () => {
    const id = newAccount();
    const deep = `{"amount": 1, "reference": ${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    const response = await topUp(id, deep);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain(`more than ${MAX_JSON_DEPTH} levels deep`);
    expect(await fx.billing.balanceOf(id)).toBe(0n);
  });

  it('answers 404 account_not_found for an unknown account', async () => {
    const response = await topUp('no-such-account', { amount: 1 });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code: 'account_not_found' });
    expect(await fx.billing.balanceOf('no-such-account')).toBe(0n);
  });
});

describe('GET /admin/v1/accounts/{id}/ledger', () => {
  const ledger = (id: string, query = '') =>
    app.inject({ method: 'GET', url: `/admin/v1/accounts/${id}/ledger${query}`, headers: auth });

  it('lists entries newest first, signed, 50 by default, bounded by limit', async () => {
    const id = newAccount();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1_000);
      await topUp(id, { amount: i });
    }
    clock.advance(1_000);
    await fx.billing.settle({
      requestId: freshId('req'),
      accountId: id,
      keyId: 'key_1',
      model: 'demo/chat',
      costMicros: 250_000n,
      usage: { inputTokens: 5, outputTokens: 5 },
    });
    const all = await ledger(id);
    expect(all.statusCode).toBe(200);
    expect(all.json().object).toBe('list');
    expect(all.json().data.map((e: { amount: number }) => e.amount)).toEqual([-0.25, 3, 2, 1]);
    expect(all.json().data[0]).toMatchObject({
      kind: 'charge',
      model: 'demo/chat',
      key_id: 'key_1',
      state: 'applied',
    });
    expect((await ledger(id, '?limit=2')).json().data).toHaveLength(2);
    expect((await ledger(id, '?limit=500')).statusCode).toBe(200);
    expect((await ledger(id, '?limit=1')).json().data).toHaveLength(1);
  });

  it.each(['0', '501', 'abc', '-1', '2.5', ''])('refuses limit=%s with 400 naming `limit`', async (limit) => {
    const response = await ledger(newAccount(), `?limit=${limit}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('`limit`');
  });

  it('answers 404 for an unknown account', async () => {
    expect((await ledger('no-such-account')).json().error.code).toBe('account_not_found');
  });
});

describe('operator token', () => {
  it('answers 401 without the token or with a wrong one', async () => {
    const id = newAccount();
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      { authorization: TOKEN },
    ]) {
      const response = await app.inject({ method: 'GET', url: `/admin/v1/accounts/${id}/ledger`, headers });
      expect(response.statusCode).toBe(401);
      const post = await app.inject({
        method: 'POST',
        url: `/admin/v1/accounts/${id}/topups`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"amount": 1}',
      });
      expect(post.statusCode).toBe(401);
    }
    expect(await fx.billing.balanceOf(id)).toBe(0n);
  });

  it('answers 404 on every route when no token is configured', async () => {
    const closed = await buildApp(undefined);
    try {
      const id = newAccount();
      const response = await closed.inject({
        method: 'GET',
        url: `/admin/v1/accounts/${id}/ledger`,
        headers: auth,
      });
      expect(response.statusCode).toBe(404);
      const post = await closed.inject({
        method: 'POST',
        url: `/admin/v1/accounts/${id}/topups`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '{"amount": 1}',
      });
      expect(post.statusCode).toBe(404);
      expect(await fx.billing.balanceOf(id)).toBe(0n);
    } finally {
      await closed.close();
    }
  });
});
