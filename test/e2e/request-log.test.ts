/**
 * The request log (docs/request-log.md): one record per request whose key passed check 2, with
 * what happened and what it cost (the answer's `service.cost`), looked up by `X-Request-Id` with a
 * key of the same account, or by the operator across accounts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../../shared/src/observability/registry.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import {
  type FundedClient,
  type GatewayWithFakes,
  patchKey,
  rawPost,
  serviceOf,
  sseDataLines,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

let g: GatewayWithFakes;
let funded: FundedClient;

beforeAll(async () => {
  g = await startGatewayWithFakes({ env: { STREAM_DRAIN_MS: '200', MIN_REQUIRED_BALANCE: '1' } });
  funded = await g.fundedClient();
});
afterAll(async () => {
  await g.close();
});
beforeEach(() => g.resetScripts());

const MODEL = 'openai/gpt-4o';

function chatBody(extra: Record<string, unknown> = {}, model = MODEL): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: 'one two three four' }], ...extra });
}

/** Sends a chat request; answers its status, JSON (or raw text) and request id. */
async function chat(key: string, extra: Record<string, unknown> = {}, model = MODEL) {
  const answer = await rawPost(g.gateway.origin, '/v1/chat/completions', key, chatBody(extra, model));
  const id = answer.headers.get('x-request-id');
  if (id === null) throw new Error('no X-Request-Id');
  return { ...answer, id };
}

/** The record of `id` as the key's account reads it (after the log wrote what it queued). */
async function recordOf(id: string, key = funded.key) {
  await g.gateway.services.requestLog.flush();
  const response = await fetch(`${g.gateway.origin}/v1/requests/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function adminGet(path: string) {
  await g.gateway.services.requestLog.flush();
  const response = await fetch(`${g.gateway.origin}/admin/v1${path}`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("the answering process's own records", () => {
  it('are found and listed at once after their answers, before their batch is due', async () => {
    const answer = await chat(funded.key);
    expect(answer.status).toBe(200);
    // No flush here: the api reads what it has queued itself.
    const response = await fetch(`${g.gateway.origin}/v1/requests/${answer.id}`, {
      headers: { authorization: `Bearer ${funded.key}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(answer.id);
    const next = await chat(funded.key);
    const page = await fetch(`${g.gateway.origin}/admin/v1/requests?key_id=${funded.keyId}&limit=1`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(((await page.json()) as { data: Array<{ id: string }> }).data.map((r) => r.id)).toEqual([next.id]);
  });
});

describe('a record for each outcome', () => {
  it('an answered completion: every field, its cost the answer’s service.cost', async () => {
    const answer = await chat(funded.key);
    expect(answer.status).toBe(200);
    const { status, body } = await recordOf(answer.id);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: answer.id,
      object: 'request',
      account_id: funded.accountId,
      key_id: funded.keyId,
      key_last4: funded.key.slice(-4),
      method: 'POST',
      path: '/v1/chat/completions',
      endpoint: 'chat',
      model: MODEL,
      provider: 'openai',
      // The channel of OPENAI_API_KEY (the environment's channel of the provider).
      channel_id: 'ch_env_openai',
      attempts: 1,
      status: 200,
      error_code: null,
      outcome: 'completed',
      stream: false,
      ttft_ms: null,
      cost: serviceOf(answer.json).cost,
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
    const usage = answer.json.usage as { prompt_tokens: number; completion_tokens: number };
    expect(body.input_tokens).toBe(usage.prompt_tokens);
    expect(body.output_tokens).toBe(usage.completion_tokens);
    expect(body.cost).toBeGreaterThan(0);
    expect(Math.abs(Number(body.created) - Date.now() / 1000)).toBeLessThan(60);
    expect(body.latency_ms).toEqual(expect.any(Number));
    // No prompt, message or output is kept.
    expect(JSON.stringify(body)).not.toContain('one two three');
    expect(Object.keys(body).sort()).toEqual(
      [
        'id',
        'object',
        'created',
        'account_id',
        'key_id',
        'key_last4',
        'method',
        'path',
        'endpoint',
        'model',
        'provider',
        'channel_id',
        'attempts',
        'status',
        'error_code',
        'outcome',
        'stream',
        'input_tokens',
        'output_tokens',
        'cached_tokens',
        'reasoning_tokens',
        'cost',
        'latency_ms',
        'ttft_ms',
        'ip',
      ].sort(),
    );
  });

  it('a streamed answer: stream, ttft_ms, and the usage chunk’s cost', async () => {
    const answer = await chat(funded.key, { stream: true, stream_options: { include_usage: true } });
    const lines = sseDataLines(String(answer.json.raw));
    const usageChunk = lines.find((l) => l !== '[DONE]' && 'service' in l);
    const { body } = await recordOf(answer.id);
    expect(body).toMatchObject({ status: 200, outcome: 'completed', stream: true, error_code: null });
    expect(body.ttft_ms).toEqual(expect.any(Number));
    expect(Number(body.ttft_ms)).toBeLessThanOrEqual(Number(body.latency_ms));
    expect(body.cost).toBe(serviceOf(usageChunk).cost);
  });

  it('an upstream failure: the error and the provider tried, nothing charged', async () => {
    g.openai.script.always({ kind: 'status', status: 500 });
    const answer = await chat(funded.key);
    expect(answer.status).toBe(502);
    const { body } = await recordOf(answer.id);
    expect(body).toMatchObject({
      status: 502,
      outcome: 'failed',
      error_code: 'upstream_error',
      provider: expect.any(String),
      cost: 0,
      model: MODEL,
    });
    expect(Number(body.attempts)).toBeGreaterThanOrEqual(1);
  });

  it('a failure after the stream’s 200: status 200, failed, the error event’s code', async () => {
    g.openai.script.next({ kind: 'fail-mid-stream', afterEvents: 3, mode: 'error-event' });
    const answer = await chat(funded.key, { stream: true });
    expect(answer.status).toBe(200);
    const { body } = await recordOf(answer.id);
    expect(body).toMatchObject({ status: 200, outcome: 'failed', error_code: 500, stream: true, cost: 0 });
  });

  it('a client that goes away mid-stream: client_gone', async () => {
    g.openai.script.next({ kind: 'stall-mid-stream', afterEvents: 2 });
    const controller = new AbortController();
    const response = await fetch(`${g.gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${funded.key}`, 'content-type': 'application/json' },
      body: chatBody({ stream: true }),
      signal: controller.signal,
    });
    const id = response.headers.get('x-request-id') as string;
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    let record: Record<string, unknown> = {};
    for (let i = 0; i < 100; i += 1) {
      const found = await recordOf(id);
      record = found.body;
      if (found.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(record).toMatchObject({ id, outcome: 'client_gone', status: 200, stream: true });
  });

  it('a client that goes away before its answer: client_gone, 499', async () => {
    g.openai.script.next({ kind: 'slow', delayMs: 1_000 });
    const controller = new AbortController();
    const sent = fetch(`${g.gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${funded.key}`, 'content-type': 'application/json' },
      body: chatBody(),
      signal: controller.signal,
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await sent;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const page = await adminGet(`/requests?account_id=${funded.accountId}&limit=1`);
    const [latest] = page.body.data as Array<Record<string, unknown>>;
    expect(latest).toMatchObject({
      outcome: 'client_gone',
      status: 499,
      error_code: 'client_closed_request',
    });
  });

  it('refused by each check after 2, each with its code', async () => {
    const cases: Array<{
      settings?: Record<string, unknown>;
      topUp?: number;
      code: string;
      status: number;
      model?: string;
    }> = [
      { settings: { allowed_ips: ['203.0.113.9'] }, code: 'ip_not_allowed', status: 403 },
      { topUp: 0, code: 'insufficient_quota', status: 402 },
      {
        settings: { allowed_models: ['anthropic/claude-sonnet-4-5'] },
        code: 'model_not_allowed',
        status: 403,
      },
    ];
    for (const c of cases) {
      const client = await g.fundedClient({ settings: c.settings ?? {}, topUp: c.topUp ?? 1_000_000 });
      const answer = await chat(client.key);
      expect(answer.status).toBe(c.status);
      await g.gateway.services.requestLog.flush();
      const { body } = await adminGet(`/requests/${answer.id}`);
      expect(body).toMatchObject({
        status: c.status,
        error_code: c.code,
        outcome: 'failed',
        cost: 0,
        attempts: 0,
      });
      expect(body.provider).toBeNull();
    }
    // Check 4: the key's window spent.
    const limited = await g.fundedClient({ settings: { rate_limit: 1 } });
    await chat(limited.key);
    const second = await chat(limited.key);
    expect(second.status).toBe(429);
    expect((await adminGet(`/requests/${second.id}`)).body).toMatchObject({
      status: 429,
      error_code: 'rate_limit_exceeded',
    });
    // Check 6: the key's monthly cap spent by its first request.
    const capped = await g.fundedClient({ settings: { monthly_cap: 0.000001 } });
    await chat(capped.key);
    await g.gateway.services.billing.flush?.();
    let refused: Awaited<ReturnType<typeof chat>> | undefined;
    for (let i = 0; i < 20 && refused?.status !== 402; i += 1) refused = await chat(capped.key);
    expect(refused?.status).toBe(402);
    expect((await adminGet(`/requests/${refused?.id}`)).body).toMatchObject({
      status: 402,
      error_code: 'spend_limit_reached',
    });
  });

  it('a native API request: native:<prefix>, its provider, its X-Service-Cost', async () => {
    const response = await fetch(`${g.gateway.origin}/anthropic/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': funded.key,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello there' }],
      }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const id = response.headers.get('x-request-id') as string;
    const { body } = await recordOf(id);
    expect(body).toMatchObject({
      endpoint: 'native:anthropic',
      path: '/anthropic/v1/messages',
      provider: 'anthropic',
      channel_id: 'ch_env_anthropic',
      status: 200,
      outcome: 'completed',
      attempts: 1,
      cost: Number(response.headers.get('x-service-cost')),
    });
    expect(body.cost).toBeGreaterThan(0);
  });

  it('no record for a request without a valid key (check 1 or 2)', async () => {
    const answer = await rawPost(g.gateway.origin, '/v1/chat/completions', 'hk-not-a-key', chatBody());
    expect(answer.status).toBe(401);
    const id = answer.headers.get('x-request-id') as string;
    expect((await adminGet(`/requests/${id}`)).status).toBe(404);
  });
});

describe('reading it', () => {
  it('a key reads its own account’s records only: another’s, or an unknown id, is 404', async () => {
    const answer = await chat(funded.key);
    const sibling = await g.gateway.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${funded.accountId}/keys`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      payload: {},
    });
    const siblingKey = (sibling.json() as { key: string }).key;
    expect((await recordOf(answer.id, siblingKey)).status).toBe(200);
    const stranger = await g.fundedClient();
    for (const id of [answer.id, 'req_000000000AAAAAAAAAAAAAAAA', 'nonsense']) {
      const { status, body } = await recordOf(id, id === answer.id ? stranger.key : funded.key);
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
  });

  it('the operator pages every account, filtered, newest first, without repeats', async () => {
    const other = await g.fundedClient();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await chat(other.key)).id);
    await patchKey(g.gateway, other.keyId, { allowed_models: ['anthropic/claude-sonnet-4-5'] });
    const refused = await chat(other.key);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = `account_id=${other.accountId}&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await adminGet(`/requests?${query}`);
      expect(page.status).toBe(200);
      expect(page.body.object).toBe('list');
      seen.push(...(page.body.data as Array<{ id: string }>).map((r) => r.id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor !== null);
    expect(seen).toEqual([refused.id, ...ids.reverse()]);
    const errors = await adminGet(`/requests?account_id=${other.accountId}&status=error`);
    expect((errors.body.data as Array<{ id: string }>).map((r) => r.id)).toEqual([refused.id]);
    const byCode = await adminGet(`/requests?status=model_not_allowed&key_id=${other.keyId}`);
    expect((byCode.body.data as Array<{ id: string }>).map((r) => r.id)).toEqual([refused.id]);
    const ok = await adminGet(`/requests?key_id=${other.keyId}&status=ok&model=${MODEL}`);
    expect((ok.body.data as unknown[]).length).toBe(5);
    const now = Math.floor(Date.now() / 1000);
    const ranged = await adminGet(`/requests?account_id=${other.accountId}&from=${now - 60}&to=${now + 1}`);
    expect((ranged.body.data as unknown[]).length).toBe(6);
    const before = await adminGet(`/requests?account_id=${other.accountId}&to=${now - 3600}`);
    expect(before.body.data).toEqual([]);
    const byIso = await adminGet(
      `/requests?account_id=${other.accountId}&from=${new Date((now - 60) * 1000).toISOString()}`,
    );
    expect((byIso.body.data as unknown[]).length).toBe(6);
    expect((await adminGet(`/requests/${refused.id}`)).body).toMatchObject({ id: refused.id, status: 403 });
  });

  it.each([
    ['an unknown filter', 'colour=red'],
    ['a filter given twice', 'model=a&model=b'],
    ['a malformed cursor', 'cursor=%%%'],
    ['a cursor not made here', `cursor=${Buffer.from('c1:zzz').toString('base64url')}`],
    ['from after to', 'from=2000&to=1000'],
    ['a bad date', 'from=yesterday'],
    ['limit 0', 'limit=0'],
    ['limit 201', 'limit=201'],
    ['limit not a number', 'limit=ten'],
    ['a bad status', 'status=NOT%20A%20STATUS'],
  ])('%s: 400 in the envelope', async (_name, query) => {
    const { status, body } = await adminGet(`/requests?${query}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { type: 'invalid_request_error', message: expect.any(String) } });
  });

  it('the operator API needs its token', async () => {
    const response = await fetch(`${g.gateway.origin}/admin/v1/requests`);
    expect(response.status).toBe(401);
  });

  it('limit defaults to 50 and goes up to 200', async () => {
    const page = await adminGet('/requests');
    expect((page.body.data as unknown[]).length).toBeLessThanOrEqual(50);
    expect((await adminGet('/requests?limit=200')).status).toBe(200);
    expect((await adminGet('/requests?limit=1')).status).toBe(200);
  });
});

describe('written off the request path', () => {
  it('a store that cannot write loses records, counted, never a request', async () => {
    const store = g.gateway.services.requestLog.store;
    const original = store.insertMany.bind(store);
    const dropped = async () =>
      (await metricsRegistry.getSingleMetric('gateway_request_log_dropped_total')?.get())?.values.reduce(
        (sum, v) => sum + v.value,
        0,
      ) ?? 0;
    const before = await dropped();
    (store as { insertMany: typeof store.insertMany }).insertMany = async () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    try {
      const answers = await Promise.all([chat(funded.key), chat(funded.key)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      await g.gateway.services.requestLog.flush();
      expect(await dropped()).toBe(before + 2);
    } finally {
      (store as { insertMany: typeof store.insertMany }).insertMany = original;
    }
    const after = await chat(funded.key);
    expect((await recordOf(after.id)).status).toBe(200);
  });
});

describe('REQUEST_LOG_ENABLED=false', () => {
  it('records nothing, and the requests are answered as usual', async () => {
    const off = await startGatewayWithFakes({ env: { REQUEST_LOG_ENABLED: 'false' } });
    try {
      const client = await off.fundedClient();
      const answer = await rawPost(off.gateway.origin, '/v1/chat/completions', client.key, chatBody());
      expect(answer.status).toBe(200);
      const id = answer.headers.get('x-request-id') as string;
      await off.gateway.services.requestLog.flush();
      const response = await fetch(`${off.gateway.origin}/admin/v1/requests/${id}`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(response.status).toBe(404);
      const page = await fetch(`${off.gateway.origin}/admin/v1/requests`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(((await page.json()) as { data: unknown[] }).data).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
