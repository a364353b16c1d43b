import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createScryptHasher } from '../../../../api/src/console/password-hasher.ts';
import { reconcilePayments } from '../../../../shared/src/payments/payment-settlement.ts';
import { fakeMerchantId, startZarinpalFake, type ZarinpalFake } from '../../../fakes/zarinpal-gateway.ts';
import { admin, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { ConsoleAgent, type Holder, newHolder } from './console-client.ts';

let fake: ZarinpalFake;
let t: TestApp;
const merchantId = fakeMerchantId();

beforeAll(async () => {
  fake = await startZarinpalFake({ merchantId });
  t = await buildTestApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ZARINPAL_MERCHANT_ID: merchantId,
      ZARINPAL_BASE_URL: fake.baseUrl,
      PAYMENT_MIN_TOMAN: '10000',
      PAYMENT_MAX_TOMAN: '5000000',
    },
    services: { passwordHasher: createScryptHasher({ N: 2 ** 10, r: 8, p: 1 }) },
  });
});
afterEach(async () => {
  // `npm run ledger:check` stays clean after every payment test.
  expect(await t.services.billing.checkLedger()).toEqual([]);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

interface Created {
  id: string;
  amount: number;
  status: string;
  redirect_url: string;
  created: string;
}

interface PaymentView {
  id: string;
  amount: number;
  status: string;
  ref_id: number | null;
  card_pan: string | null;
  reason: string | null;
  paid_at: string | null;
}

const authorityOf = (created: Created) => created.redirect_url.split('/pg/StartPay/')[1] as string;

async function start(holder: Holder, amount = 50_000): Promise<Created> {
  return holder.agent.expect<Created>(201, 'POST', '/payments', { payload: { amount } });
}

async function callback(query: string) {
  const response = await t.app.inject({ method: 'GET', url: `/payments/zarinpal/callback?${query}` });
  expect(response.statusCode, response.body).toBe(303);
  const location = new URL(String(response.headers.location), 'http://x');
  expect(location.pathname).toBe('/console/wallet');
  return Object.fromEntries(location.searchParams);
}

async function balance(holder: Holder): Promise<bigint> {
  return t.services.billing.balanceOf(holder.accountId);
}

async function paymentsOf(holder: Holder): Promise<PaymentView[]> {
  return (await holder.agent.expect<{ data: PaymentView[] }>(200, 'GET', '/payments')).data;
}

describe('POST /console/api/payments', () => {
  it('stores a pending payment and asks Zarinpal in Toman with currency IRT', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 120_000);
    expect(created).toMatchObject({ amount: 120_000, status: 'pending' });
    expect(created.id).toMatch(/^pay_/);
    expect(created.redirect_url).toMatch(new RegExp(`^${fake.baseUrl}/pg/StartPay/A[0-9A-Za-z]{35}$`));
    const call = fake.calls.filter((c) => c.endpoint === 'request').at(-1);
    expect(call?.body).toMatchObject({
      merchant_id: merchantId,
      amount: 120_000,
      currency: 'IRT',
      callback_url: 'http://localhost:80/payments/zarinpal/callback',
    });
    expect(typeof call?.body.description).toBe('string');
    expect(await paymentsOf(holder)).toMatchObject([{ id: created.id, status: 'pending', ref_id: null }]);
  });

  it.each([
    ['zero', 0],
    ['negative', -10_000],
    ['fractional', 10_000.5],
    ['under the minimum', 9_999],
    ['over the maximum', 5_000_001],
  ])('refuses an amount %s with 400 in the envelope, storing nothing', async (_name, amount) => {
    const holder = await newHolder(t.app);
    const response = await holder.agent.request('POST', '/payments', { payload: { amount } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'amount_out_of_range', type: 'invalid_request_error' },
    });
    expect(await paymentsOf(holder)).toEqual([]);
  });

  it('refuses unknown fields, a string amount and a missing amount with 400', async () => {
    const holder = await newHolder(t.app);
    for (const payload of [{ amount: 20_000, currency: 'IRR' }, { amount: '20000' }, {}]) {
      const response = await holder.agent.request('POST', '/payments', { payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
    }
  });

  it('refuses a bad list limit with 400', async () => {
    const holder = await newHolder(t.app);
    for (const limit of ['0', '201', 'many'])
      expect((await holder.agent.request('GET', `/payments?limit=${limit}`)).statusCode, limit).toBe(400);
    await holder.agent.expect(200, 'GET', '/payments?limit=5');
  });

  it('needs a holder session and the CSRF token', async () => {
    const anonymous = new ConsoleAgent(t.app);
    expect((await anonymous.request('POST', '/payments', { payload: { amount: 20_000 } })).statusCode).toBe(
      401,
    );
    const holder = await newHolder(t.app);
    const response = await holder.agent.request('POST', '/payments', {
      payload: { amount: 20_000 },
      csrf: 'none',
    });
    expect(response.statusCode).toBe(403);
  });

  it('fails the payment with the gateway’s code when Zarinpal refuses (502), crediting nothing', async () => {
    const holder = await newHolder(t.app);
    fake.fail('request', { kind: 'error', code: -11 });
    const response = await holder.agent.request('POST', '/payments', { payload: { amount: 20_000 } });
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('payment_gateway_error');
    expect(await paymentsOf(holder)).toMatchObject([{ status: 'failed', reason: 'gateway_error_11' }]);
    expect(await balance(holder)).toBe(0n);
  });

  it('keeps the payment pending when Zarinpal answers no JSON (503)', async () => {
    const holder = await newHolder(t.app);
    fake.fail('request', { kind: 'http', status: 502 });
    const response = await holder.agent.request('POST', '/payments', { payload: { amount: 20_000 } });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('payment_gateway_unavailable');
    expect(await paymentsOf(holder)).toMatchObject([{ status: 'pending', reason: 'gateway_unavailable' }]);
  });
});

describe('GET /payments/zarinpal/callback', () => {
  it('verifies with the stored amount, credits once, stores ref_id and the masked card', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 75_000);
    fake.pay(authorityOf(created));
    const result = await callback(`Authority=${authorityOf(created)}&Status=OK`);
    expect(result).toEqual({ payment: 'paid', id: created.id });
    expect(await balance(holder)).toBe(75_000n * 1_000_000n);
    const [payment] = await paymentsOf(holder);
    expect(payment).toMatchObject({ status: 'paid', card_pan: '502229******5995', reason: null });
    expect(payment?.ref_id).toEqual(expect.any(Number));
    expect(payment?.paid_at).not.toBeNull();
    const verify = fake.calls.filter((c) => c.endpoint === 'verify').at(-1);
    expect(verify?.body).toEqual({
      merchant_id: merchantId,
      amount: 75_000,
      authority: authorityOf(created),
    });
    // Replays credit nothing more.
    for (let i = 0; i < 3; i += 1)
      expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toEqual({
        payment: 'paid',
        id: created.id,
      });
    expect(await balance(holder)).toBe(75_000n * 1_000_000n);
  });

  it('credits once under 10 concurrent callbacks', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 30_000);
    fake.pay(authorityOf(created));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => callback(`Authority=${authorityOf(created)}&Status=OK`)),
    );
    for (const result of results) expect(result.payment).toBe('paid');
    expect(await balance(holder)).toBe(30_000n * 1_000_000n);
    const ledger = await t.services.billing.listLedger(holder.accountId, { limit: 50 });
    expect(ledger.filter((e) => e.kind === 'topup')).toHaveLength(1);
  });

  it('credits once when verify answers 101 (verified before, the first answer lost)', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 40_000);
    fake.pay(authorityOf(created));
    const session = fake.sessions.get(authorityOf(created));
    if (session === undefined) throw new Error('no session');
    session.state = 'VERIFIED';
    session.refId = 999;
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({ payment: 'paid' });
    expect(await balance(holder)).toBe(40_000n * 1_000_000n);
    expect((await paymentsOf(holder))[0]?.ref_id).toBe(999);
  });

  it('NOK fails the payment as cancelled and credits nothing', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    expect(await callback(`Authority=${authorityOf(created)}&Status=NOK`)).toEqual({
      payment: 'failed',
      id: created.id,
      reason: 'cancelled',
    });
    expect(await balance(holder)).toBe(0n);
    expect(await paymentsOf(holder)).toMatchObject([{ status: 'failed', reason: 'cancelled' }]);
  });

  it('OK for a payment never paid (verify -51) fails it and credits nothing', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toEqual({
      payment: 'failed',
      id: created.id,
      reason: 'not_paid',
    });
    expect(await balance(holder)).toBe(0n);
  });

  it('an amount mismatch (verify -50) never credits', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    fake.pay(authorityOf(created));
    fake.fail('verify', { kind: 'error', code: -50 });
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({
      payment: 'failed',
      reason: 'amount_mismatch',
    });
    expect(await balance(holder)).toBe(0n);
  });

  it('a verify refused as an invalid authority (-54) never credits', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    fake.pay(authorityOf(created));
    fake.fail('verify', { kind: 'error', code: -54 });
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({
      payment: 'failed',
      reason: 'invalid_authority',
    });
    expect(await balance(holder)).toBe(0n);
  });

  it('a forged or unknown authority, or none, changes nothing', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    fake.pay(authorityOf(created));
    for (const query of [
      `Authority=A${'0'.repeat(35)}&Status=OK`,
      'Authority=not-an-authority&Status=OK',
      'Status=OK',
      '',
    ]) {
      expect(await callback(query)).toEqual({ payment: 'failed', reason: 'unknown_authority' });
    }
    expect(await balance(holder)).toBe(0n);
    expect(await paymentsOf(holder)).toMatchObject([{ status: 'pending' }]);
  });

  it('a verify that does not answer leaves the payment pending, then the reconciler credits it', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 25_000);
    fake.pay(authorityOf(created));
    fake.fail('verify', { kind: 'http', status: 500 });
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({
      payment: 'pending',
      reason: 'gateway_unavailable',
    });
    expect(await balance(holder)).toBe(0n);
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({ payment: 'paid' });
    expect(await balance(holder)).toBe(25_000n * 1_000_000n);
  });
});

describe('the reconciler', () => {
  const settlementAt = (ms: number) => {
    const settlement = t.services.selfServe.settlement;
    if (settlement === undefined) throw new Error('payments are not enabled');
    return { ...settlement, clock: () => new Date(Date.now() + ms) };
  };
  const MINUTE = 60_000;

  it('credits a paid payment whose callback never came, after 15 minutes, once', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder, 60_000);
    fake.pay(authorityOf(created));
    await reconcilePayments(settlementAt(5 * MINUTE));
    expect(await balance(holder)).toBe(0n);
    await reconcilePayments(settlementAt(16 * MINUTE));
    expect(await balance(holder)).toBe(60_000n * 1_000_000n);
    expect((await paymentsOf(holder))[0]).toMatchObject({ status: 'paid' });
    // A late callback after that credits nothing more.
    expect(await callback(`Authority=${authorityOf(created)}&Status=OK`)).toMatchObject({ payment: 'paid' });
    expect(await balance(holder)).toBe(60_000n * 1_000_000n);
  });

  it('leaves an unpaid payment pending for a day, then fails it as expired', async () => {
    const holder = await newHolder(t.app);
    await start(holder);
    await reconcilePayments(settlementAt(60 * MINUTE));
    expect((await paymentsOf(holder))[0]).toMatchObject({ status: 'pending' });
    await reconcilePayments(settlementAt(25 * 60 * MINUTE));
    expect((await paymentsOf(holder))[0]).toMatchObject({ status: 'failed', reason: 'expired' });
    expect(await balance(holder)).toBe(0n);
  });

  it('fails a payment whose request never got an authority', async () => {
    const holder = await newHolder(t.app);
    fake.fail('request', { kind: 'http', status: 500 });
    await holder.agent.expect(503, 'POST', '/payments', { payload: { amount: 20_000 } });
    await reconcilePayments(settlementAt(16 * MINUTE));
    expect((await paymentsOf(holder))[0]).toMatchObject({ status: 'failed', reason: 'gateway_unavailable' });
  });

  it('fails a payment the gateway reports failed (inquiry FAILED)', async () => {
    const holder = await newHolder(t.app);
    const created = await start(holder);
    const session = fake.sessions.get(authorityOf(created));
    if (session !== undefined) session.state = 'FAILED';
    await reconcilePayments(settlementAt(16 * MINUTE));
    expect((await paymentsOf(holder))[0]).toMatchObject({ status: 'failed', reason: 'not_paid' });
  });
});

describe('the operator', () => {
  it('sees every payment of an account (operator API and console), 404 for an unknown account', async () => {
    const holder = await newHolder(t.app);
    const first = await start(holder, 20_000);
    await start(holder, 30_000);
    const listed = await admin<{ data: PaymentView[] }>(
      t.app,
      'GET',
      `/accounts/${holder.accountId}/payments`,
    );
    expect(listed.data.map((p) => p.amount)).toEqual([30_000, 20_000]);
    expect(listed.data[1]?.id).toBe(first.id);
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/accounts/acct_000000000000000000000000/payments',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(unknown.statusCode).toBe(404);
    const operator = new ConsoleAgent(t.app);
    await operator.signInOperator();
    const seen = await operator.expect<{ data: PaymentView[] }>(
      200,
      'GET',
      `/accounts/${holder.accountId}/payments`,
    );
    expect(seen.data).toHaveLength(2);
    await operator.expect(404, 'GET', '/accounts/acct_000000000000000000000000/payments');
  });
});

describe('without ZARINPAL_MERCHANT_ID', () => {
  let closed: TestApp;
  beforeAll(async () => {
    closed = await buildTestApp({
      env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      services: { passwordHasher: createScryptHasher({ N: 2 ** 10, r: 8, p: 1 }) },
    });
  });
  afterAll(async () => {
    await closed?.close();
  });

  it('answers 404 payments_disabled and the callback credits nothing', async () => {
    const holder = await newHolder(closed.app);
    const response = await holder.agent.request('POST', '/payments', { payload: { amount: 20_000 } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('payments_disabled');
    const back = await closed.app.inject({
      method: 'GET',
      url: `/payments/zarinpal/callback?Authority=A${'0'.repeat(35)}&Status=OK`,
    });
    expect(back.statusCode).toBe(303);
    expect(String(back.headers.location)).toContain('reason=payments_disabled');
  });
});
