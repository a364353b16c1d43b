/**
 * Channels across two api replicas sharing one store and one Redis: a channel made on one serves on
 * the other within 2 s; a breaker opened on one is seen by the other; after the cooldown exactly
 * one request (the probe) reaches the channel across both, and a failed probe doubles the wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_KEY, type OpenAIUpstream, startOpenAIUpstream } from '../../fakes/openai-upstream.ts';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { replicaEnvironment } from '../../helpers/test-config.ts';

const MODEL = 'openai/gpt-4o-mini';
let a: TestApp;
let b: TestApp;
let key: string;
let flaky: OpenAIUpstream;
let healthy: OpenAIUpstream;

async function chat(app: TestApp): Promise<number> {
  const res = await app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
  });
  return res.statusCode;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

beforeAll(async () => {
  [flaky, healthy] = [await startOpenAIUpstream(), await startOpenAIUpstream()];
  const env = {
    ...replicaEnvironment('channels'),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    OPENAI_API_KEY: undefined,
    CHANNEL_FAILURE_THRESHOLD: '1',
    CHANNEL_COOLDOWN_MS: '1000',
  };
  [a, b] = [await buildTestApp({ env }), await buildTestApp({ env })];
  ({ key } = await createFundedKey(a.app, { topUp: 1_000_000, settings: { rate_limit: 3000 } }));
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await flaky?.close();
  await healthy?.close();
});

describe('channels on two replicas', () => {
  it('serves a channel made on one replica from the other within 2 s', async () => {
    expect(await chat(b)).toBe(404);
    await admin(a.app, 'POST', '/channels', {
      provider: 'openai',
      name: 'healthy',
      api_key: DEFAULT_FAKE_KEY,
      base_url: healthy.url,
      priority: 1,
    });
    const took = await until(async () => (await chat(b)) === 200, 2_000);
    expect(took).toBeLessThan(2_000);
  });

  it('lets exactly one probe per cooldown reach a failing channel across both replicas', async () => {
    flaky.script.next({ kind: 'status', status: 503 }, 1000);
    const created = await admin<{ id: string }>(a.app, 'POST', '/channels', {
      provider: 'openai',
      name: 'flaky',
      api_key: DEFAULT_FAKE_KEY,
      base_url: flaky.url,
      priority: 0,
    });
    await until(async () => (await chat(b)) === 200 && flaky.requests.length > 0, 2_000);
    expect(flaky.requests.length).toBe(1); // the threshold is 1: open after its first failure
    await until(
      async () =>
        (await admin<{ status: string }>(b.app, 'GET', `/channels/${created.id}`)).status === 'cooling_down',
      2_000,
    );
    for (const round of [1, 2]) {
      // The cooldown: 1 s, then doubled by the failed probe.
      await new Promise((resolve) => setTimeout(resolve, round * 1_000 + 150));
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(i % 2 === 0 ? a : b)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(flaky.requests.length).toBe(1 + round);
    }
  });
});
