/**
 * After a restart, a synchronous media job whose api is gone is not run again (docs/media.md, "Who
 * waits for a job"). An api PROCESS and a worker PROCESS; an image request is in the middle of its
 * provider call when both are killed (SIGKILL, as a host restart). A new worker finds the job
 * stalled and takes it (short BullMQ lock here), but no api holds the job's waiter lease any more:
 * the job is cancelled without a second call to the provider (counted at the fake), nothing is
 * charged.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { fundedProcessKey, startApiProcess, useMediaProcesses } from '../../helpers/api-process.ts';
import { waitUntil } from '../../helpers/media-gateway.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';

// A killed worker's job is taken by another within seconds; a killed api's lease lapses in one.
const stack = useMediaProcesses({
  LOG_LEVEL: 'info',
  WORKER_LOCK_DURATION_MS: '1500',
  WORKER_STALLED_INTERVAL_MS: '1000',
  MEDIA_WAITER_LEASE_MS: '1000',
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startWorker(): SpawnedEntry {
  const worker = spawnEntry('workers/src/main.ts', { ...stack.env, WORKER_QUEUES: 'image' });
  stack.running.push(worker);
  return worker;
}

describe('an image job whose api and worker were killed mid-call', () => {
  it('is not run again by the next worker: cancelled, one provider call, nothing charged', {
    timeout: 60_000,
  }, async () => {
    const { api, origin } = await startApiProcess(stack.env, await freePort(), stack.running);
    const worker = startWorker();
    await worker.waitFor(/worker ready/);
    const { accountId, key } = await fundedProcessKey(origin, 'restart@example.test');

    // Slow enough that the call is surely in flight at the kill; a rerun would be as slow.
    stack.fake.script.next({ kind: 'slow', delayMs: 5_000 }, 2);
    const imageCalls = () => stack.fake.requests.filter((r) => r.url === '/v1/images/generations').length;
    const request = fetch(`${origin}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'nobody will see this', n: 1 }),
    }).catch(() => null);
    await waitUntil(() => imageCalls() === 1, 15_000);

    api.child.kill('SIGKILL');
    worker.child.kill('SIGKILL');
    await Promise.all([api.exited(), worker.exited(), request]);

    const next = startWorker();
    await next.waitFor(/worker ready/);
    const jobs = () => stack.connections.store.mediaJobs.listOwned(accountId, 'image', 10);
    await waitUntil(async () => (await jobs())[0]?.status === 'cancelled', 20_000);
    // Time for a (wrong) rerun to reach the provider.
    await sleep(1_500);
    expect(imageCalls()).toBe(1);
    expect(next.output()).toContain('no api waits for the job any more');
    expect(await stack.connections.store.money.listLedger(accountId, { limit: 10, kind: 'charge' })).toEqual(
      [],
    );
    expect(await stack.connections.store.money.checkLedger()).toEqual([]);
  });
});
