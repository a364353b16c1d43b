/**
 * Holds are leases, and nothing an api leaves behind outlives it (docs/money-core.md, "Holds are
 * leases"; docs/media.md, "Reconciliation"). Two api PROCESSES and a worker process on one store
 * and queue prefix, with a short lease. Slow image requests are in flight on both apis when one of
 * them is killed (SIGKILL): the holds of its requests are gone within one lease, while the live
 * api's long request keeps its hold, renewed past several lease lengths, and is delivered and
 * charged. The killed api's jobs still complete on the worker; nobody delivers them, so the
 * worker's reconciler discards them: nothing charged, their images deleted from S3 and Redis.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { billingKeys } from '../../../shared/src/billing/redis-keys.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { createMediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import { fundedProcessKey, startApiProcess, useMediaProcesses } from '../../helpers/api-process.ts';
import { spawnEntry } from '../../helpers/spawn-entry.ts';

const LEASE_MS = 1_500;
const WAIT_MS = 8_000;
/** The provider's image call takes this long: every request is in flight for several leases. */
const RENDER_MS = 6_000;

const stack = useMediaProcesses({
  HOLD_LEASE_MS: String(LEASE_MS),
  MEDIA_WAIT_TIMEOUT_MS: String(WAIT_MS),
  RECONCILE_INTERVAL_MS: '300',
});

function generateImage(origin: string, key: string): Promise<Response> {
  return fetch(`${origin}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'slowly', n: 1 }),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe('an api killed (SIGKILL) with requests in flight', () => {
  it('loses its holds within one lease; a live api keeps its own; its undelivered jobs are discarded', {
    timeout: 90_000,
  }, async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const [{ api: doomed, origin: originA }, { origin: originB }] = await Promise.all([
      startApiProcess(stack.env, portA, stack.running),
      startApiProcess(stack.env, portB, stack.running),
    ]);
    const worker = spawnEntry('workers/src/main.ts', { ...stack.env, LOG_LEVEL: 'info' });
    stack.running.push(worker);
    await worker.waitFor(/worker ready/);
    const victim = await fundedProcessKey(originA, 'victim@example.test');
    const survivor = await fundedProcessKey(originB, 'survivor@example.test');
    const prefix = `${stack.env.QUEUE_PREFIX}:billing:`;
    const walletHolds = (accountId: string) => billingKeys(prefix).walletHolds(accountId).expiries;
    const liveHolds = (accountId: string) =>
      stack.connections.redis.zcount(walletHolds(accountId), `(${Date.now()}`, '+inf');

    stack.fake.script.next({ kind: 'slow', delayMs: RENDER_MS }, 4);
    const imageCalls = () => stack.fake.requests.filter((r) => r.url === '/v1/images/generations').length;
    const doomedRequests = [1, 2, 3].map(() => generateImage(originA, victim.key).catch(() => null));
    await waitFor(async () => (await liveHolds(victim.accountId)) === 3, 10_000);
    const kept = generateImage(originB, survivor.key);
    const keptSince = Date.now();
    await waitFor(async () => imageCalls() === 4, 10_000);
    expect(await liveHolds(survivor.accountId)).toBe(1);

    // The kill: A's holds are no longer renewed, and are gone within one lease.
    doomed.child.kill('SIGKILL');
    await doomed.exited();
    const killedAt = Date.now();
    // The latest expiry its renewals set is at most one lease after the kill (read from the hold
    // set, not timed by polling, which a slow host would stretch)…
    const [, latest] = await stack.connections.redis.zrange(
      walletHolds(victim.accountId),
      '-1',
      '-1',
      'WITHSCORES',
    );
    expect(Number(latest)).toBeLessThanOrEqual(killedAt + LEASE_MS + 50);
    await Promise.all(doomedRequests);
    // …and nothing renews them any more: all are gone once that instant has passed.
    await waitFor(async () => (await liveHolds(victim.accountId)) === 0, 2 * LEASE_MS);

    // B's request lives on: its hold stays, renewed, past several lease lengths.
    let heldUntil = keptSince;
    let answer: Response | null = null;
    void kept.then((response) => {
      answer = response;
    });
    while (answer === null) {
      if ((await liveHolds(survivor.accountId)) === 1) heldUntil = Date.now();
      else {
        // Gone only once answered (its charge then replaced it): the answer is on its way.
        await Promise.race([kept, sleep(1_000)]);
        if (answer === null) throw new Error('the live request lost its hold before its answer');
      }
      await sleep(100);
    }
    expect(heldUntil - keptSince).toBeGreaterThanOrEqual(3 * LEASE_MS);
    const delivered = answer as Response;
    expect(delivered.status).toBe(200);
    const keptJob = mediaJobIdFor('image', delivered.headers.get('x-request-id') ?? '');
    await delivered.arrayBuffer();
    await waitFor(async () => (await liveHolds(survivor.accountId)) === 0, 5_000);

    // A's jobs completed on the worker with nobody to deliver them: the reconciler discards them.
    const jobsOf = async (accountId: string): Promise<MediaJob[]> =>
      stack.connections.store.mediaJobs.listOwned(accountId, 'image', 10);
    await waitFor(async () => {
      const jobs = await jobsOf(victim.accountId);
      return (
        jobs.length === 3 && jobs.every((job) => job.status === 'discarded' || job.status === 'cancelled')
      );
    }, 40_000);
    const storage = createMediaStorage(stack.connections.s3, stack.env.S3_BUCKET as string);
    const isStored = async (key: string) => {
      const found = await storage.read(key);
      if (found !== null && found !== 'unsatisfiable') found.body.destroy();
      return found !== null;
    };
    for (const job of await jobsOf(victim.accountId)) {
      expect(job.costMicros).toBeNull();
      expect(job.status).toBe('discarded'); // it completed first: the provider answered within the wait
      for (const image of job.result?.kind === 'image' ? job.result.images : []) {
        // The reconciler ends the job first, then removes its media: wait for the removal.
        await waitFor(async () => !(await isStored(image.key)), 5_000);
        if (image.handoff !== undefined)
          expect(
            await stack.connections.redis.exists(`${stack.env.QUEUE_PREFIX}:media-handoff:${image.handoff}`),
          ).toBe(0);
      }
      expect(job.result?.kind === 'image' && job.result.images.length).toBe(1);
    }
    expect(
      await stack.connections.store.money.listLedger(victim.accountId, { limit: 10, kind: 'charge' }),
    ).toEqual([]);
    const charges = await stack.connections.store.money.listLedger(survivor.accountId, {
      limit: 10,
      kind: 'charge',
    });
    expect(charges.map((entry) => entry.id)).toEqual([keptJob]);
    expect((await stack.connections.store.mediaJobs.findById(keptJob))?.status).toBe('delivered');
    expect(await stack.connections.store.money.checkLedger()).toEqual([]);
  });
});
