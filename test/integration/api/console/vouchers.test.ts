import { afterEach, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { ConsoleAgent, type Holder, newHolder, useConsoleApp } from './console-client.ts';

const t = useConsoleApp();

afterEach(async () => {
  expect(await t.services.billing.checkLedger()).toEqual([]);
});

interface Batch {
  batch_id: string;
  codes: string[];
  amount: number;
  count: number;
  expires_at: string | null;
  note: string | null;
}

async function makeVouchers(body: object): Promise<Batch> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/vouchers',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    payload: body as Record<string, unknown>,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Batch>();
}

const redeem = (holder: Holder, code: unknown) =>
  holder.agent.request('POST', '/vouchers/redeem', { payload: { code } });

describe('POST /admin/v1/vouchers', () => {
  it('makes count codes, shown once, stored only as digests', async () => {
    const batch = await makeVouchers({ amount: 50_000, count: 3, note: 'launch' });
    expect(batch).toMatchObject({ amount: 50_000, count: 3, note: 'launch', expires_at: null });
    expect(batch.codes).toHaveLength(3);
    expect(new Set(batch.codes).size).toBe(3);
    for (const code of batch.codes) expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const listed = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/vouchers?status=unused',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(listed.statusCode).toBe(200);
    const text = listed.body;
    for (const code of batch.codes) expect(text).not.toContain(code);
    expect(
      listed.json().data.filter((v: { batch_id: string }) => v.batch_id === batch.batch_id),
    ).toHaveLength(3);
  });

  it.each([
    ['a zero amount', { amount: 0, count: 1 }],
    ['a fractional amount', { amount: 10.5, count: 1 }],
    ['no count', { amount: 1000 }],
    ['a count of 0', { amount: 1000, count: 0 }],
    ['a count over 1000', { amount: 1000, count: 1001 }],
    ['an unknown field', { amount: 1000, count: 1, code: 'MINE' }],
    ['an expiry in the past', { amount: 1000, count: 1, expires_at: '2000-01-01T00:00:00Z' }],
    ['an expiry that is no time', { amount: 1000, count: 1, expires_at: 'tomorrow' }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/vouchers',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.type).toBe('invalid_request_error');
  });

  it('refuses a bad list query with 400', async () => {
    for (const query of ['status=sold', 'limit=0', 'limit=x', 'other=1']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/vouchers?${query}`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(response.statusCode, query).toBe(400);
    }
  });

  it('needs the operator token (401)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/vouchers',
      payload: { amount: 1, count: 1 },
    });
    expect(response.statusCode).toBe(401);
  });
});

describe('POST /console/api/vouchers/redeem', () => {
  it('credits the wallet and answers the amount and balance; a used code is 409 voucher_used', async () => {
    const [code] = (await makeVouchers({ amount: 70_000, count: 1 })).codes;
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const response = await redeem(holder, code?.toLowerCase().replaceAll('-', ' '));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ amount: 70_000, balance: 71_000 });
    const again = await redeem(holder, code);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('voucher_used');
    const other = await newHolder(t.app);
    expect((await redeem(other, code)).statusCode).toBe(409);
    expect(await t.services.billing.balanceOf(other.accountId)).toBe(0n);
  });

  it('answers 404 voucher_not_found for an unknown and an expired code', async () => {
    const holder = await newHolder(t.app);
    const unknown = await redeem(holder, 'ZZZZ-ZZZZ-ZZZZ-ZZZZ');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('voucher_not_found');
    const [code] = (
      await makeVouchers({ amount: 1_000, count: 1, expires_at: new Date(Date.now() + 300).toISOString() })
    ).codes;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const expired = await redeem(holder, code);
    expect(expired.statusCode).toBe(404);
    expect(expired.json().error.code).toBe('voucher_not_found');
    expect(await t.services.billing.balanceOf(holder.accountId)).toBe(0n);
  });

  it('credits once under 10 concurrent redemptions of one code by several holders', async () => {
    const [code] = (await makeVouchers({ amount: 10_000, count: 1 })).codes;
    const holders = await Promise.all([newHolder(t.app), newHolder(t.app)]);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => redeem(holders[i % 2] as Holder, code)),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const balances = await Promise.all(holders.map((h) => t.services.billing.balanceOf(h.accountId)));
    expect(balances.reduce((a, b) => a + b, 0n)).toBe(10_000n * 1_000_000n);
  });

  it('refuses a missing code and unknown fields with 400, and needs a holder session', async () => {
    const holder = await newHolder(t.app);
    expect((await holder.agent.request('POST', '/vouchers/redeem', { payload: {} })).statusCode).toBe(400);
    expect(
      (await holder.agent.request('POST', '/vouchers/redeem', { payload: { code: 'X', amount: 5 } }))
        .statusCode,
    ).toBe(400);
    const anonymous = new ConsoleAgent(t.app);
    expect((await anonymous.request('POST', '/vouchers/redeem', { payload: { code: 'X' } })).statusCode).toBe(
      401,
    );
  });
});

describe('the operator console', () => {
  it('creates vouchers and lists them used and unused, never with the code', async () => {
    const operator = new ConsoleAgent(t.app);
    await operator.signInOperator();
    const batch = await operator.expect<Batch>(201, 'POST', '/vouchers', {
      payload: { amount: 20_000, count: 2 },
    });
    expect(batch.codes).toHaveLength(2);
    const holder = await newHolder(t.app);
    expect((await redeem(holder, batch.codes[0])).statusCode).toBe(200);
    const used = await operator.expect<{ data: { batch_id: string; status: string; redeemed_by: string }[] }>(
      200,
      'GET',
      '/vouchers?status=used',
    );
    expect(used.data.find((v) => v.batch_id === batch.batch_id)).toMatchObject({
      status: 'used',
      redeemed_by: holder.accountId,
    });
    const all = await operator.request('GET', '/vouchers');
    for (const code of batch.codes) expect(all.body).not.toContain(code);
    await operator.expect(400, 'POST', '/vouchers', { payload: { amount: 20_000, count: 2000 } });
    await operator.expect(400, 'GET', '/vouchers?status=sold');
    // Holders never see the operator's voucher routes.
    expect((await holder.agent.request('GET', '/vouchers')).statusCode).toBe(404);
  });
});
