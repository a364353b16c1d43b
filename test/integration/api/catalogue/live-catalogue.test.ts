import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { replicaEnvironment } from '../../../helpers/test-config.ts';

// Two api replicas on one store, Redis and prefix, as behind a load balancer.
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  const env = { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...replicaEnvironment('live-catalogue') };
  a = await buildTestApp({ env });
  b = await buildTestApp({ env });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

function operator(app: FastifyInstance, method: 'GET' | 'PATCH' | 'PUT', url: string, payload?: unknown) {
  return app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: auth,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

async function listed(app: FastifyInstance, id: string): Promise<boolean> {
  const res = await app.inject({ method: 'GET', url: '/v1/models' });
  return (res.json() as { data: { id: string }[] }).data.some((model) => model.id === id);
}

async function chat(app: FastifyInstance, key: string, model: string) {
  return app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}` },
    payload: { model, messages: [{ role: 'user', content: 'hello there' }] },
  });
}

type OperatorModel = {
  id: string;
  enabled: boolean;
  served: boolean;
  price_override: unknown;
  pricing: { input: number; output: number | null; cached_input: number | null };
  list_price_usd: { input: number; output: number | null };
};

async function operatorModel(app: FastifyInstance, id: string): Promise<OperatorModel> {
  const res = await operator(app, 'GET', '/models');
  const found = (res.json() as { data: OperatorModel[] }).data.find((model) => model.id === id);
  if (found === undefined) throw new Error(`${id} is not listed`);
  return found;
}

describe('a model disabled by the operator', () => {
  it('leaves every surface of both replicas within 2 s, and comes back when enabled', async () => {
    const { key } = await createFundedKey(a.app, { topUp: 10_000 });
    expect((await chat(b.app, key, 'demo/chat')).statusCode).toBe(200);

    const patched = await operator(a.app, 'PATCH', '/models/demo/chat', { enabled: false });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: 'demo/chat', enabled: false, served: false });

    expect(await within(2_000, async () => !(await listed(b.app, 'demo/chat')))).toBe(true);
    expect(await listed(a.app, 'demo/chat')).toBe(false);
    const one = await b.app.inject({ method: 'GET', url: '/v1/models/demo/chat' });
    expect(one.statusCode).toBe(404);
    const refused = await chat(b.app, key, 'demo/chat');
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ error: { code: 'model_not_found' } });
    // By alias too, and on the console's pricing list.
    expect((await chat(a.app, key, 'demo')).statusCode).toBe(404);
    const consoleList = await b.app.inject({ method: 'GET', url: '/console/api/models' });
    expect((consoleList.json() as { data: { id: string }[] }).data.map((m) => m.id)).not.toContain(
      'demo/chat',
    );
    // Still listed for the operator, disabled.
    expect(await operatorModel(b.app, 'demo/chat')).toMatchObject({ enabled: false, served: false });

    await operator(b.app, 'PATCH', '/models/demo%2Fchat', { enabled: true });
    expect(await within(2_000, async () => await listed(a.app, 'demo/chat'))).toBe(true);
    expect((await chat(a.app, key, 'demo/chat')).statusCode).toBe(200);
  });
});

describe('prices', () => {
  it('a price override charges requests admitted after it, on both replicas', async () => {
    const { key, accountId } = await createFundedKey(a.app, { topUp: 10_000 });
    await operator(a.app, 'PATCH', '/models/demo/chat', {
      price_override: { input: 1000, output: 2000, cached_input: 1000 },
    });
    await within(2_000, async () => (await operatorModel(b.app, 'demo/chat')).pricing.input === 1000);
    const before = await a.services.billing.balanceOf(accountId);
    const res = await chat(b.app, key, 'demo/chat');
    expect(res.statusCode).toBe(200);
    const usage = (res.json() as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    await b.services.billing.flush();
    const charged = before - (await a.services.billing.balanceOf(accountId));
    expect(charged).toBe(BigInt(usage.prompt_tokens * 1000 + usage.completion_tokens * 2000));
    // Back to the list price.
    const back = await operator(a.app, 'PATCH', '/models/demo/chat', { price_override: null });
    expect(back.json()).toMatchObject({ price_override: null, pricing: { input: 1050 } });
  });

  it('the rate and the markup reprice list-priced models and not overridden ones', async () => {
    const rate = await operator(a.app, 'GET', '/exchange-rate');
    expect(rate.json()).toEqual({ irt_per_usd: 105000, as_of: '2026-11-01' });
    const priced = await operator(a.app, 'PATCH', '/models/demo/chat-reasoning', {
      price_override: { input: 7, output: 9 },
    });
    expect(priced.statusCode, priced.body).toBe(200);
    expect((await operator(a.app, 'PUT', '/exchange-rate', { irt_per_usd: 200000 })).statusCode).toBe(200);
    // The other replica learns of the new rate by its catalogue's change notice: waited for.
    const listPriced = await vi.waitFor(async () => {
      const model = await operatorModel(b.app, 'demo/embedding');
      expect(model.pricing.input).toBeCloseTo(model.list_price_usd.input * 200000, 2);
      return model;
    });
    const usd = listPriced.list_price_usd.input;
    const overridden = await operatorModel(b.app, 'demo/chat-reasoning');
    expect(overridden.pricing).toMatchObject({ input: 7, output: 9, cached_input: null });

    const markup = await operator(b.app, 'PUT', '/markup', { markup_percent: 10 });
    expect(markup.json()).toEqual({ markup_percent: 10 });
    expect((await operator(a.app, 'GET', '/markup')).json()).toEqual({ markup_percent: 10 });
    expect((await operatorModel(a.app, 'demo/embedding')).pricing.input).toBeCloseTo(usd * 220000, 2);
    expect((await operatorModel(a.app, 'demo/chat-reasoning')).pricing.input).toBe(7);
    // The public list shows the same effective prices.
    const pub = await b.app.inject({ method: 'GET', url: '/v1/models/demo/embedding' });
    expect((pub.json() as { pricing: { input: number } }).pricing.input).toBeCloseTo(usd * 220000, 2);

    const after = (await operator(a.app, 'GET', '/exchange-rate')).json() as {
      irt_per_usd: number;
      as_of: string;
    };
    expect(after.irt_per_usd).toBe(200000);
    expect(Number.isNaN(Date.parse(after.as_of))).toBe(false);
    await operator(a.app, 'PUT', '/markup', { markup_percent: 0 });
    await operator(a.app, 'PUT', '/exchange-rate', { irt_per_usd: 105000 });
    await operator(a.app, 'PATCH', '/models/demo/chat-reasoning', { price_override: null });
  });

  it('a price plan multiplies the holds and charges of its account, and shows on the account', async () => {
    const { key, accountId } = await createFundedKey(a.app, { topUp: 10_000 });
    await operator(a.app, 'PATCH', '/models/demo/chat', {
      price_override: { input: 1000, output: 2000, cached_input: 1000 },
    });
    const plan = await operator(a.app, 'PATCH', `/accounts/${accountId}`, { price_multiplier: 0.5 });
    expect(plan.statusCode).toBe(200);
    expect(plan.json()).toMatchObject({ id: accountId, price_multiplier: 0.5, status: 'active' });
    await within(2_000, async () => {
      const res = await operator(b.app, 'GET', `/accounts/${accountId}`);
      return (res.json() as { price_multiplier: number }).price_multiplier === 0.5;
    });
    const before = await a.services.billing.balanceOf(accountId);
    const res = await chat(b.app, key, 'demo/chat');
    const usage = (res.json() as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    await b.services.billing.flush();
    const charged = before - (await a.services.billing.balanceOf(accountId));
    expect(charged).toBe(BigInt((usage.prompt_tokens * 1000 + usage.completion_tokens * 2000) / 2));
    await operator(a.app, 'PATCH', '/models/demo/chat', { price_override: null });
  });
});

describe('the history of changes', () => {
  it('records each change, newest first, a page at a time', async () => {
    const { accountId } = await createFundedKey(a.app, { topUp: 1 });
    await operator(a.app, 'PATCH', '/models/demo/tts', { enabled: false });
    await operator(a.app, 'PATCH', '/models/demo/tts', { enabled: true });
    await operator(a.app, 'PATCH', `/accounts/${accountId}`, { price_multiplier: 2 });
    const first = await operator(b.app, 'GET', '/catalogue/changes?limit=2');
    expect(first.statusCode).toBe(200);
    const page = first.json() as {
      object: string;
      data: Record<string, unknown>[];
      next_cursor: string | null;
    };
    expect(page.object).toBe('list');
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).toMatchObject({
      actor: 'admin-api',
      subject: `account:${accountId}`,
      field: 'price_multiplier',
      before: 1,
      after: 2,
    });
    expect(page.data[1]).toMatchObject({ subject: 'demo/tts', field: 'enabled', before: false, after: true });
    expect(typeof page.data[0]?.created).toBe('number');
    expect(Math.abs((page.data[0]?.created as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(page.next_cursor).not.toBeNull();
    const second = await operator(b.app, 'GET', `/catalogue/changes?limit=2&cursor=${page.next_cursor}`);
    const next = second.json() as { data: Record<string, unknown>[] };
    expect(next.data[0]).toMatchObject({ subject: 'demo/tts', field: 'enabled', before: true, after: false });
  });
});

describe('bad input', () => {
  const cases: [string, 'PATCH' | 'PUT', string, unknown][] = [
    ['a negative price', 'PATCH', '/models/demo/chat', { price_override: { input: -1, output: 1 } }],
    ['a non-numeric price', 'PATCH', '/models/demo/chat', { price_override: { input: 'ten', output: 1 } }],
    [
      'a price without output for an output-billed model',
      'PATCH',
      '/models/demo/chat',
      { price_override: { input: 1 } },
    ],
    [
      'an unknown price field',
      'PATCH',
      '/models/demo/chat',
      { price_override: { input: 1, output: 1, extra: 1 } },
    ],
    ['an unknown field', 'PATCH', '/models/demo/chat', { enabled: true, colour: 'red' }],
    ['enabled as text', 'PATCH', '/models/demo/chat', { enabled: 'no' }],
    ['a rate of 0', 'PUT', '/exchange-rate', { irt_per_usd: 0 }],
    ['a negative rate', 'PUT', '/exchange-rate', { irt_per_usd: -5 }],
    ['a rate that is not a number', 'PUT', '/exchange-rate', { irt_per_usd: 'abc' }],
    ['a rate with an unknown field', 'PUT', '/exchange-rate', { irt_per_usd: 1, note: 'x' }],
    ['a missing rate', 'PUT', '/exchange-rate', {}],
    ['a markup below -90', 'PUT', '/markup', { markup_percent: -91 }],
    ['a markup above 1000', 'PUT', '/markup', { markup_percent: 1001 }],
    ['a markup that is not a number', 'PUT', '/markup', { markup_percent: '5' }],
  ];
  for (const [name, method, url, body] of cases) {
    it(`answers 400 for ${name}`, async () => {
      const res = await operator(a.app, method, url, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    });
  }

  it('answers 400 for a price multiplier out of range, and for an unknown account field', async () => {
    const { accountId } = await createFundedKey(a.app, { topUp: 1 });
    for (const body of [
      { price_multiplier: 0.05 },
      { price_multiplier: 11 },
      { price_multiplier: '1' },
      { plan: 1 },
      {},
    ]) {
      const res = await operator(a.app, 'PATCH', `/accounts/${accountId}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const missing = await operator(a.app, 'PATCH', '/accounts/acct_000000000000000000000000', {
      price_multiplier: 1.5,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('answers 404 model_not_found for an unknown model, and 400 for a bad history cursor or limit', async () => {
    const res = await operator(a.app, 'PATCH', '/models/nobody/nothing', { enabled: false });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'model_not_found' } });
    expect((await operator(a.app, 'GET', '/catalogue/changes?cursor=garbage')).statusCode).toBe(400);
    expect((await operator(a.app, 'GET', '/catalogue/changes?limit=0')).statusCode).toBe(400);
    expect((await operator(a.app, 'GET', '/catalogue/changes?limit=101')).statusCode).toBe(400);
  });

  it('answers 401 without the operator token', async () => {
    const res = await a.app.inject({ method: 'GET', url: '/admin/v1/models' });
    expect(res.statusCode).toBe(401);
  });
});
