/**
 * After a restart, a synchronous media job whose api is gone is not run again (docs/media.md, "Who
 * waits for a job"). An api PROCESS and a worker PROCESS; an image request is in the middle of its
 * provider call when both are killed (SIGKILL, as a host restart). A new worker finds the job
 * stalled and takes it (short BullMQ lock here), but no api holds the job's waiter lease any more:
 * the job is cancelled without a second call to the provider (counted at the fake), nothing is
 * charged.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { loadConfig } from '../../../shared/src/config/config.ts';
import {
  type Connections,
  closeConnections,
  openConnections,
} from '../../../shared/src/runtime/connections.ts';
import { type OpenAIMediaUpstream, startOpenAIMediaUpstream } from '../../fakes/openai-media-upstream.ts';
import { DEFAULT_FAKE_KEY } from '../../fakes/openai-upstream.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { adminPost, startApiProcess } from '../../helpers/api-process.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const running: SpawnedEntry[] = [];
let fake: OpenAIMediaUpstream;
let env: Record<string, string | undefined>;
let connections: Connections;

beforeAll(async () => {
  fake = await startOpenAIMediaUpstream();
  env = testEnvironment({
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: DEFAULT_FAKE_KEY,
    // A killed worker's job is taken by another within seconds; a killed api's lease lapses in one.
    WORKER_LOCK_DURATION_MS: '1500',
    WORKER_STALLED_INTERVAL_MS: '1000',
    MEDIA_WAITER_LEASE_MS: '1000',
  });
  connections = await openConnections(loadConfig(env), 'test', captureLogger('silent').logger);
});

afterEach(() => {
  for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
});

afterAll(async () => {
  await closeConnections(connections);
  await fake.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

function startWorker(): SpawnedEntry {
  const worker = spawnEntry('workers/src/main.ts', { ...env, WORKER_QUEUES: 'image' });
  running.push(worker);
  return worker;
}

describe('an image job whose api and worker were killed mid-call', () => {
  it('is not run again by the next worker: cancelled, one provider call, nothing charged', {
    timeout: 60_000,
  }, async () => {
    const { api, origin } = await startApiProcess(env, await freePort(), running);
    const worker = startWorker();
    await worker.waitFor(/worker ready/);
    const account = await adminPost<{ id: string }>(origin, '/accounts', { email: 'restart@example.test' });
    await adminPost(origin, `/accounts/${account.id}/topups`, { amount: 1_000_000 });
    const { key } = await adminPost<{ key: string }>(origin, `/accounts/${account.id}/keys`, {});

    // Slow enough that the call is surely in flight at the kill; a rerun would be as slow.
    fake.script.next({ kind: 'slow', delayMs: 5_000 }, 2);
    const imageCalls = () => fake.requests.filter((r) => r.url === '/v1/images/generations').length;
    const request = fetch(`${origin}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'nobody will see this', n: 1 }),
    }).catch(() => null);
    await waitFor(() => imageCalls() === 1, 15_000);

    api.child.kill('SIGKILL');
    worker.child.kill('SIGKILL');
    await Promise.all([api.exited(), worker.exited(), request]);

    const next = startWorker();
    await next.waitFor(/worker ready/);
    const jobs = () => connections.store.mediaJobs.listOwned(account.id, 'image', 10);
    await waitFor(async () => (await jobs())[0]?.status === 'cancelled', 20_000);
    // Time for a (wrong) rerun to reach the provider.
    await sleep(1_500);
    expect(imageCalls()).toBe(1);
    expect(next.output()).toContain('no api waits for the job any more');
    expect(await connections.store.money.listLedger(account.id, { limit: 10, kind: 'charge' })).toEqual([]);
    expect(await connections.store.money.checkLedger()).toEqual([]);
  });
});
