/**
 * Redis loses its data under running videos: every video still ends `completed` or `failed`.
 *
 * The api (in process) and a worker PROCESS run on a redis-server of this test's own (it is
 * flushed). Several videos render on the demo provider; FLUSHALL takes their queue entries, holds
 * and snapshots; the worker's reconciler finds the unfinished videos without a queue entry and
 * enqueues them again (the same BullMQ job id); the reruns poll the render already submitted and
 * deliver. A completed video is charged once, a failed one never, and the ledger check passes.
 * Then a video no worker takes fails once past its deadline (the reconciler), uncharged, its hold
 * released.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startRedisServer } from '../../infra/local-services/redis-server.ts';
import { billingKeys } from '../../shared/src/billing/redis-keys.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import {
  costMicros,
  type MediaClient,
  type MediaGateway,
  serviceOf,
  startMediaGateway,
  waitUntil,
} from '../helpers/media-gateway.ts';
import { createVideo, type VideoRecord } from '../helpers/media-videos.ts';
import type { SpawnedEntry } from '../helpers/spawn-entry.ts';

const DEADLINE_MS = 8_000;

let redis: LocalRedis;
let m: MediaGateway;
let user: MediaClient;
let worker: SpawnedEntry;

beforeAll(async () => {
  redis = await startRedisServer();
  const env = { REDIS_URL: redis.url, VIDEO_DEADLINE_MS: String(DEADLINE_MS) };
  m = await startMediaGateway({
    apiEnv: env,
    workerEnv: {
      ...env,
      RECONCILE_INTERVAL_MS: '300',
      DEMO_VIDEO_RENDER_MS: '2500',
      VIDEO_POLL_INTERVAL_MS: '150',
      HOLD_LEASE_MS: '3000',
    },
  });
  worker = await m.startWorker();
  user = await m.fundedClient();
}, 60_000);

afterAll(async () => {
  await m?.close();
  await redis?.process.stop();
});

async function videoStatus(id: string): Promise<VideoRecord> {
  const response = await fetch(`${m.gateway.origin}/v1/videos/${id}`, {
    headers: { authorization: `Bearer ${user.key}` },
  });
  return (await response.json()) as VideoRecord;
}

describe('Redis flushed under running videos', () => {
  it('every video ends completed or failed; completed ones are charged once, failed ones never', {
    timeout: 60_000,
  }, async () => {
    const before = await m.balanceMicros(user.accountId);
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createVideo(m, user.key, { model: 'demo/video', prompt: `flushed ${i}`, duration: 2 }),
      ),
    );
    // All submitted and polling (the worker holds their render), none finished.
    await waitUntil(async () => {
      const jobs = await Promise.all(created.map((video) => m.job(video.id)));
      return jobs.every((job) => job?.status === 'running' && job.operation !== null);
    }, 10_000);
    expect((await Promise.all(created.map((video) => m.job(video.id)))).map((job) => job?.status)).toEqual(
      created.map(() => 'running'),
    );

    const admin = createRedis(redis.url);
    try {
      expect(await admin.flushall()).toBe('OK');
    } finally {
      admin.disconnect();
    }

    const ended = new Map<string, VideoRecord>();
    await waitUntil(async () => {
      for (const video of created) {
        if (ended.has(video.id)) continue;
        const record = await videoStatus(video.id);
        if (record.status === 'completed' || record.status === 'failed') ended.set(video.id, record);
      }
      return ended.size === created.length;
    }, 40_000);

    const charges = await m.charges(user.accountId);
    let charged = 0n;
    for (const video of created) {
      const record = ended.get(video.id) as VideoRecord;
      const entries = charges.filter((charge) => charge.id === video.id);
      if (record.status === 'completed') {
        const cost = costMicros(serviceOf(record).cost);
        expect(entries).toEqual([{ id: video.id, amountMicros: -cost }]);
        charged += cost;
      } else {
        expect(entries).toEqual([]);
        expect((await m.job(video.id))?.costMicros).toBeNull();
      }
    }
    // The reruns were possible: the demo renders all of them well within their deadline.
    expect([...ended.values()].filter((record) => record.status === 'completed').length).toBeGreaterThan(0);
    expect(charges).toHaveLength(
      [...ended.values()].filter((record) => record.status === 'completed').length,
    );
    expect(await m.balanceMicros(user.accountId)).toBe(before - charged);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
    expect(worker.child.exitCode).toBeNull();
  });
});

describe('a video no worker takes', () => {
  it('fails once past its deadline, uncharged, its hold released', { timeout: 60_000 }, async () => {
    // Only an image worker now: its reconciler still watches every queue.
    await m.startWorker({ WORKER_QUEUES: 'image' });
    worker.child.kill('SIGKILL');
    await worker.exited();
    const before = await m.balanceMicros(user.accountId);
    const video = await createVideo(m, user.key, { model: 'demo/video', prompt: 'never taken', duration: 2 });
    const holds = billingKeys(`${m.gateway.config.queues.prefix}:billing:`).walletHolds(user.accountId);
    const admin = createRedis(redis.url);
    try {
      expect(await admin.zscore(holds.expiries, video.id)).not.toBeNull();
      await waitUntil(
        async () => (await videoStatus(video.id)).status !== 'in_progress',
        DEADLINE_MS + 15_000,
      );
      const record = await videoStatus(video.id);
      expect(record.status).toBe('failed');
      expect(record.error?.message).toMatch(/deadline/);
      expect(Date.now()).toBeGreaterThan((await m.job(video.id))?.deadlineAt?.getTime() ?? Infinity);
      expect(await admin.zscore(holds.expiries, video.id)).toBeNull();
    } finally {
      admin.disconnect();
    }
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    expect((await m.charges(user.accountId)).filter((charge) => charge.id === video.id)).toEqual([]);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });
});
