/**
 * The live catalogue across PROCESSES: two api processes and a worker process on one store, Redis
 * and prefix. A model disabled through one api leaves every surface of both within 2 s (the worker
 * logs the new snapshot as soon), and comes back when enabled; a video admitted before a price
 * change is charged the price it was admitted at, by the worker, when its render ends.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { fundedProcessKey, startApiProcess, useSpawnedProcesses } from '../../helpers/api-process.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const running = useSpawnedProcesses();

async function operator(origin: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${origin}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function within(ms: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= ms) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

const listed = async (origin: string, id: string) => {
  const res = await fetch(`${origin}/v1/models`);
  return ((await res.json()) as { data: { id: string }[] }).data.some((model) => model.id === id);
};

const chat = (origin: string, key: string, model: string) =>
  fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

async function stack(extra: Record<string, string> = {}) {
  const env = testEnvironment({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'info', ...extra });
  const [one, two] = await Promise.all([
    startApiProcess(env, await freePort(), running),
    startApiProcess(env, await freePort(), running),
  ]);
  const worker: SpawnedEntry = spawnEntry('workers/src/main.ts', env);
  running.push(worker);
  await worker.waitFor(/worker ready/);
  return { one, two, worker };
}

describe('two api processes and a worker', () => {
  it('a disabled model leaves every surface of each within 2 s and comes back when enabled', {
    timeout: 60_000,
  }, async () => {
    const { one, two, worker } = await stack();
    const { key } = await fundedProcessKey(one.origin, 'live-catalogue@example.test');
    expect((await chat(two.origin, key, 'demo/chat')).status).toBe(200);

    const disabled = await operator(one.origin, 'PATCH', '/models/demo/chat', { enabled: false });
    expect(disabled.status).toBe(200);
    for (const origin of [one.origin, two.origin]) {
      expect(await within(2_000, async () => !(await listed(origin, 'demo/chat')))).not.toBeNull();
      expect((await fetch(`${origin}/v1/models/demo/chat`)).status).toBe(404);
      const refused = await chat(origin, key, 'demo/chat');
      expect(refused.status).toBe(404);
      expect(await refused.json()).toMatchObject({ error: { code: 'model_not_found' } });
    }
    // The worker serves the new snapshot too (version 1).
    await worker.waitFor(
      /catalogue snapshot rebuilt.*"version":1|"version":1.*catalogue snapshot rebuilt/,
      2_000,
    );

    await operator(two.origin, 'PATCH', '/models/demo/chat', { enabled: true });
    for (const origin of [one.origin, two.origin]) {
      expect(await within(2_000, () => listed(origin, 'demo/chat'))).not.toBeNull();
      expect((await chat(origin, key, 'demo/chat')).status).toBe(200);
    }
    await worker.waitFor(
      /catalogue snapshot rebuilt.*"version":2|"version":2.*catalogue snapshot rebuilt/,
      2_000,
    );
  });

  it('a video admitted before a price change is charged its admission price', {
    timeout: 90_000,
  }, async () => {
    const { one, two } = await stack({ DEMO_VIDEO_RENDER_MS: '1500', VIDEO_POLL_INTERVAL_MS: '200' });
    const { key } = await fundedProcessKey(one.origin, 'video-price@example.test', 100_000);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${one.origin}/v1/videos`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'demo/video', prompt: 'waves', duration: 4 }),
    });
    expect(created.status).toBe(202);
    const video = (await created.json()) as { id: string };
    // Ten times the list price (105 Toman a second at the file's rate), while it renders.
    const priced = await operator(two.origin, 'PATCH', '/models/demo/video', {
      price_override: { input: 1050 },
    });
    expect(priced.status).toBe(200);
    const done = await within(40_000, async () => {
      const res = await fetch(`${two.origin}/v1/videos/${video.id}`, { headers });
      return ((await res.json()) as { status: string }).status === 'completed';
    });
    expect(done).not.toBeNull();
    const balance = await fetch(`${one.origin}/v1/balance`, { headers });
    // 4 s × 105 Toman, not × 1050.
    expect(((await balance.json()) as { balance: number }).balance).toBe(100_000 - 420);
  });
});
