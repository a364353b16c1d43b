/**
 * Routing through channels against several instances of the OpenAI fake, each on its own port: the
 * traffic splits by weight, priorities are tried lowest first, a failing channel costs no client an
 * error and gets a few requests before its breaker opens, a refused credential auto-disables its
 * channel at once, a 429's Retry-After sets the cooldown, a half-open channel gets one probe and
 * recovers, and the request log names the channel that answered. Channels are made through the
 * operator API while the gateway runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_KEY, type OpenAIUpstream, startOpenAIUpstream } from '../fakes/openai-upstream.ts';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

const MODEL = 'openai/gpt-4o-mini';
let gateway: ListeningApp;
let key: string;
const fakes: OpenAIUpstream[] = [];

async function fake(options: Parameters<typeof startOpenAIUpstream>[0] = {}): Promise<OpenAIUpstream> {
  const upstream = await startOpenAIUpstream(options);
  fakes.push(upstream);
  return upstream;
}

interface Channel {
  id: string;
  status: string;
  status_reason: string | null;
  cooldown_until: unknown;
  requests: number;
  failures: number;
}

async function channel(upstream: OpenAIUpstream, fields: Record<string, unknown> = {}): Promise<Channel> {
  return admin<Channel>(gateway.app, 'POST', '/channels', {
    provider: 'openai',
    name: `ch-${Math.random().toString(36).slice(2, 10)}`,
    api_key: DEFAULT_FAKE_KEY,
    base_url: upstream.url,
    ...fields,
  });
}

async function chat(): Promise<number> {
  const res = await gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
  });
  return res.statusCode;
}

async function settle(ms = 150): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

beforeAll(async () => {
  gateway = await startListeningApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      OPENAI_API_KEY: undefined,
      CHANNEL_FAILURE_THRESHOLD: '3',
      CHANNEL_COOLDOWN_MS: '1000',
    },
  });
  ({ key } = await createFundedKey(gateway.app, { topUp: 1_000_000, settings: { rate_limit: 3000 } }));
});

afterEach(async () => {
  // Each test starts from no channels.
  const { data } = await admin<{ data: Array<{ id: string; source: string }> }>(
    gateway.app,
    'GET',
    '/channels',
  );
  for (const c of data) if (c.source === 'api') await admin(gateway.app, 'DELETE', `/channels/${c.id}`);
  for (const upstream of fakes.splice(0)) await upstream.close();
});

afterAll(async () => {
  await gateway?.close();
});

describe('routing through channels', () => {
  it('serves a model once a channel of its provider exists, and splits traffic by weight', async () => {
    expect(await chat()).toBe(404); // no channel of openai: the model is not served
    const [light, heavy] = [await fake(), await fake()];
    await channel(light, { weight: 1 });
    await channel(heavy, { weight: 3 });
    const statuses = [];
    for (let i = 0; i < 200; i += 1) statuses.push(await chat());
    expect(statuses.every((s) => s === 200)).toBe(true);
    const share = heavy.requests.length / 200;
    expect(share).toBeGreaterThan(0.62);
    expect(share).toBeLessThan(0.88);
  });

  it('tries the lowest priority value first, the next only when it fails', async () => {
    const [first, second] = [await fake(), await fake()];
    await channel(second, { priority: 5 });
    await channel(first, { priority: -1 });
    for (let i = 0; i < 10; i += 1) expect(await chat()).toBe(200);
    expect([first.requests.length, second.requests.length]).toEqual([10, 0]);
    first.script.next({ kind: 'status', status: 503 });
    expect(await chat()).toBe(200);
    expect(second.requests.length).toBe(1);
  });

  it('names in the request log the channel that answered, after the one that failed', async () => {
    const [first, second] = [await fake(), await fake()];
    const failing = await channel(first, { priority: 0 });
    const answering = await channel(second, { priority: 1 });
    first.script.next({ kind: 'status', status: 503 });
    const res = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
    });
    expect(res.statusCode).toBe(200);
    await gateway.services.requestLog.flush();
    const record = await admin<{ channel_id: string; attempts: number; provider: string }>(
      gateway.app,
      'GET',
      `/requests/${String(res.headers['x-request-id'])}`,
    );
    expect(failing.id).not.toBe(answering.id);
    expect(record).toMatchObject({ provider: 'openai', channel_id: answering.id, attempts: 2 });
  });

  it('costs no client an error when a channel always fails, and stops sending to it after a few', async () => {
    const [failing, healthy] = [await fake(), await fake()];
    failing.script.next({ kind: 'status', status: 503 }, 1000);
    const bad = await channel(failing, { priority: 0 });
    await channel(healthy, { priority: 1 });
    for (let i = 0; i < 30; i += 1) {
      expect(await chat()).toBe(200);
      await settle(5);
    }
    expect(failing.requests.length).toBeGreaterThanOrEqual(3);
    expect(failing.requests.length).toBeLessThanOrEqual(5);
    const seen = await admin<Channel>(gateway.app, 'GET', `/channels/${bad.id}`);
    expect(seen.status).toBe('cooling_down');
    expect(seen.status_reason).toContain('503');
  });

  it('lets one probe through after the cooldown; its success makes the channel healthy again', async () => {
    const [flaky, healthy] = [await fake(), await fake()];
    flaky.script.next({ kind: 'status', status: 503 }, 3);
    const c = await channel(flaky, { priority: 0 });
    await channel(healthy, { priority: 1 });
    for (let i = 0; i < 3; i += 1) expect(await chat()).toBe(200);
    await settle();
    expect((await admin<Channel>(gateway.app, 'GET', `/channels/${c.id}`)).status).toBe('cooling_down');
    for (let i = 0; i < 5; i += 1) expect(await chat()).toBe(200);
    expect(flaky.requests.length).toBe(3); // cooling down: not tried
    await settle(1100);
    expect(await chat()).toBe(200); // the probe
    await settle();
    expect(flaky.requests.length).toBe(4);
    expect((await admin<Channel>(gateway.app, 'GET', `/channels/${c.id}`)).status).toBe('healthy');
  });

  it('auto-disables a channel whose credential the provider refuses, without a client error', async () => {
    const [refusing, healthy] = [await fake({ apiKey: 'sk-another-key' }), await fake()];
    const c = await channel(refusing, { priority: 0 });
    await channel(healthy, { priority: 1 });
    for (let i = 0; i < 5; i += 1) expect(await chat()).toBe(200);
    await settle();
    expect(refusing.requests.length).toBe(1);
    const seen = await admin<Channel>(gateway.app, 'GET', `/channels/${c.id}`);
    expect(seen.status).toBe('auto_disabled');
    expect(seen.status_reason).toMatch(/refused the credential/);
    expect(JSON.stringify(seen)).not.toContain(DEFAULT_FAKE_KEY);
    // An edit of the channel makes it healthy again.
    const edited = await admin<Channel>(gateway.app, 'PATCH', `/channels/${c.id}`, {
      api_key: 'sk-another-key',
    });
    expect(edited.status).toBe('healthy');
    for (let i = 0; i < 3; i += 1) expect(await chat()).toBe(200);
    expect(refusing.requests.length).toBe(4);
  });

  it("opens for an upstream 429's Retry-After", async () => {
    const [limited, healthy] = [await fake(), await fake()];
    limited.script.next({ kind: 'status', status: 429, retryAfterSeconds: 120 }, 1000);
    const c = await channel(limited, { priority: 0 });
    await channel(healthy, { priority: 1 });
    const before = Date.now();
    for (let i = 0; i < 6; i += 1) {
      expect(await chat()).toBe(200);
      await settle(5);
    }
    await settle();
    const seen = await admin<Channel>(gateway.app, 'GET', `/channels/${c.id}`);
    expect(seen.status).toBe('cooling_down');
    const until =
      typeof seen.cooldown_until === 'number'
        ? seen.cooldown_until * 1000
        : Date.parse(String(seen.cooldown_until));
    expect(until - before).toBeGreaterThan(110_000);
    expect(until - before).toBeLessThan(130_000);
  });

  it('answers 502 when every channel fails', async () => {
    const failing = await fake();
    failing.script.next({ kind: 'status', status: 500 }, 1000);
    await channel(failing);
    expect(await chat()).toBe(502);
  });
});
