/**
 * The reconciler (workers/src/reconcile/reconcile-media-jobs.ts) on a real store, real BullMQ
 * queues and real billing holds: every job that is not final ends or runs again, whatever was lost.
 */
import { randomBytes } from 'node:crypto';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeQueues, createQueues, type Queues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { MediaJob, MediaJobResult } from '../../../shared/src/media-jobs/media-job.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { VIDEO_HOLD_MARGIN_MS } from '../../../shared/src/media-jobs/video-hold.ts';
import { createRedis } from '../../../shared/src/redis/redis.ts';
import {
  ACTIVE_VIDEO_GRACE_MS,
  abandonedAfterMs,
  decide,
  type ReconcileDeps,
  reconcileMediaJobs,
  startReconciler,
} from '../../../workers/src/reconcile/reconcile-media-jobs.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { JOB_REQUESTS, newJobId } from '../../helpers/media-job-fixture.ts';
import { type BillingFixture, billingFixture } from '../shared/billing/billing-fixture.ts';

const WAIT_MS = 120_000;
const DEADLINE_MS = 30 * 60_000;
const MINUTE = 60_000;
const COST = 5_000_000n;

let fx: BillingFixture;
let connection: Redis;
let queues: Queues;
const storage = { remove: vi.fn(async (_keys: readonly string[]) => undefined) };
const handoff = { drop: vi.fn(async (_names: readonly string[]) => undefined) };

beforeAll(async () => {
  fx = await billingFixture();
  connection = createRedis(fx.config.redis, { forBullmq: true });
  queues = createQueues(connection, fx.config.queues.prefix);
});

afterAll(async () => {
  await Promise.all(Object.values(queues).map((queue) => queue.obliterate({ force: true })));
  await closeQueues(queues);
  connection.disconnect();
  await fx.close();
});

function deps(now = () => new Date()): ReconcileDeps {
  return {
    jobs: fx.store.mediaJobs,
    queues,
    storage,
    handoff,
    billing: fx.billing,
    settings: { waitTimeoutMs: WAIT_MS, videoDeadlineMs: DEADLINE_MS, minAgeMs: 1_000 },
    now,
    logger: captureLogger('silent').logger,
  };
}

/** A job of `kind`, created `ageMs` ago, brought to `status` then, with its hold taken. */
async function jobOf(
  kind: MediaJob['kind'],
  status: 'queued' | 'running' | 'completed',
  ageMs: number,
  options: { deadlineInMs?: number; result?: MediaJobResult; hold?: boolean } = {},
): Promise<MediaJob> {
  const at = new Date(Date.now() - ageMs);
  const id = newJobId(kind);
  const accountId = `acct_${randomBytes(4).toString('hex')}`;
  const keyId = `key_${randomBytes(4).toString('hex')}`;
  const deadlineAt = kind === 'video' ? new Date(Date.now() + (options.deadlineInMs ?? 10 * MINUTE)) : null;
  const jobs = fx.store.mediaJobs;
  await jobs.insertQueued(
    { id, accountId, keyId, model: 'demo/x', request: JOB_REQUESTS[kind], holdMicros: COST, deadlineAt },
    at,
  );
  if (status !== 'queued') await jobs.markRunning(id, at);
  if (status === 'completed') {
    const result = options.result ?? {
      kind: 'speech',
      key: mediaKeys.speech(id, 'attempt-1'),
      characters: 5,
    };
    await jobs.markCompleted(id, result, null, null, at);
  }
  if (options.hold !== false) {
    await fx.billing.restoreHold({ requestId: id, accountId, keyId, amountMicros: COST, ttlMs: 60 * MINUTE });
  }
  return (await jobs.findById(id)) as MediaJob;
}

const holdOf = (job: MediaJob) => fx.redis.zscore(fx.deps.keys.walletHolds(job.accountId).expiries, job.id);
const statusOf = async (job: MediaJob) => (await fx.store.mediaJobs.findById(job.id))?.status;

describe('videos', () => {
  it('a video whose queue entry is gone is enqueued again, once, and its lost hold put back', async () => {
    const video = await jobOf('video', 'running', 2 * MINUTE, { hold: false });
    const [a, b] = await Promise.all([reconcileMediaJobs(deps()), reconcileMediaJobs(deps())]);
    expect((a?.enqueued ?? 0) + (b?.enqueued ?? 0)).toBeGreaterThanOrEqual(1);
    expect(await queues.video.getJobState(video.id)).toBe('waiting');
    expect((await queues.video.getJobs(['waiting'])).filter((job) => job.id === video.id)).toHaveLength(1);
    expect(await statusOf(video)).toBe('running');
    const expiry = Number(await holdOf(video));
    const expected = (video.deadlineAt as Date).getTime() + VIDEO_HOLD_MARGIN_MS;
    expect(Math.abs(expiry - expected)).toBeLessThan(5_000);
    // Queued now: the next pass leaves it.
    expect((await reconcileMediaJobs(deps())).enqueued).toBe(0);
  });

  it('a video past its deadline fails (never charged), its hold released and its queue entry removed', async () => {
    const video = await jobOf('video', 'running', 40 * MINUTE, { deadlineInMs: -MINUTE });
    await queues.video.add('video.render', { jobId: video.id }, { jobId: video.id, delay: 60_000 });
    expect(await holdOf(video)).not.toBeNull();
    const report = await reconcileMediaJobs(deps());
    expect(report.failed).toBeGreaterThanOrEqual(1);
    const failed = await fx.store.mediaJobs.findById(video.id);
    expect(failed).toMatchObject({ status: 'failed', costMicros: null, error: { code: 'render_failed' } });
    expect(await holdOf(video)).toBeNull();
    expect(await queues.video.getJobState(video.id)).toBe('unknown');
    expect(await fx.billing.listLedger(video.accountId, { limit: 10 })).toEqual([]);
  });

  it('a job whose BullMQ entry ended while its document did not is replaced by a fresh entry', async () => {
    const video = await jobOf('video', 'running', 2 * MINUTE);
    await queues.video.add('video.render', { jobId: video.id }, { jobId: video.id });
    const workerConnection = createRedis(fx.config.redis, { forBullmq: true });
    const worker = new Worker(
      'video',
      async () => {
        throw new UnrecoverableError('lost its way');
      },
      { connection: workerConnection, prefix: fx.config.queues.prefix },
    );
    try {
      await vi.waitFor(async () => expect(await queues.video.getJobState(video.id)).toBe('failed'), {
        timeout: 10_000,
      });
    } finally {
      await worker.close();
      workerConnection.disconnect();
    }
    await reconcileMediaJobs(deps());
    expect(await queues.video.getJobState(video.id)).toBe('waiting');
    expect(await statusOf(video)).toBe('running');
  });
});

describe('synchronous jobs', () => {
  it('a completed job its api never delivered is discarded: media deleted, hold released, nothing charged', async () => {
    const result: MediaJobResult = {
      kind: 'image',
      images: [{ key: 'jobs/x/image-0.png', revisedPrompt: null, handoff: 'copy-1' }],
    };
    const image = await jobOf('image', 'completed', abandonedAfterMs(WAIT_MS) + MINUTE, { result });
    storage.remove.mockClear();
    handoff.drop.mockClear();
    const report = await reconcileMediaJobs(deps());
    expect(report.discarded).toBeGreaterThanOrEqual(1);
    expect(await statusOf(image)).toBe('discarded');
    expect(storage.remove).toHaveBeenCalledWith(['jobs/x/image-0.png']);
    expect(handoff.drop).toHaveBeenCalledWith(['copy-1']);
    expect(await holdOf(image)).toBeNull();
    expect(await fx.billing.listLedger(image.accountId, { limit: 10 })).toEqual([]);
  });

  it('a queued job of a gone api is cancelled, its upload deleted and its queue entry removed', async () => {
    const stt = await jobOf('transcription', 'queued', abandonedAfterMs(WAIT_MS) + MINUTE);
    await queues.transcription.add(
      'transcription.transcribe',
      { jobId: stt.id },
      { jobId: stt.id, delay: 60_000 },
    );
    storage.remove.mockClear();
    await reconcileMediaJobs(deps());
    expect(await statusOf(stt)).toBe('cancelled');
    expect(storage.remove).toHaveBeenCalledWith([mediaKeys.upload(stt.id)]);
    expect(await holdOf(stt)).toBeNull();
    expect(await queues.transcription.getJobState(stt.id)).toBe('unknown');
  });

  it('while its api may still wait: a lost queue entry is enqueued again, a completed job is left', async () => {
    const queued = await jobOf('speech', 'queued', 30_000);
    const completed = await jobOf('image', 'completed', 30_000);
    await reconcileMediaJobs(deps());
    expect(await queues.speech.getJobState(queued.id)).toBe('waiting');
    expect(await statusOf(queued)).toBe('queued');
    expect(await statusOf(completed)).toBe('completed');
    expect(await holdOf(completed)).not.toBeNull();
  });

  it('a job touched more recently than the minimum age is left to its owner', async () => {
    const fresh = await jobOf('image', 'queued', 0);
    await reconcileMediaJobs(deps());
    expect(await queues.image.getJobState(fresh.id)).toBe('unknown');
  });
});

describe('the loop', () => {
  it('runs a pass every interval until stopped; a lock lets one pass stand for all', async () => {
    const job = await jobOf('speech', 'queued', 30_000);
    let locked = 0;
    const loop = startReconciler(deps(), 50, async () => {
      locked += 1;
      return locked === 1;
    });
    await vi.waitFor(() => expect(locked).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    await loop.stop();
    expect(await queues.speech.getJobState(job.id)).toBe('waiting');
  });
});

describe('decide', () => {
  const settings = { waitTimeoutMs: WAIT_MS, videoDeadlineMs: DEADLINE_MS };
  const now = new Date('2030-01-01T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const video = (status: MediaJob['status'], deadlineInMs: number) => ({
    kind: 'video' as const,
    status,
    createdAt: ago(MINUTE),
    deadlineAt: new Date(now.getTime() + deadlineInMs),
  });
  const sync = (status: MediaJob['status'], ageMs: number) => ({
    kind: 'image' as const,
    status,
    createdAt: ago(ageMs),
    deadlineAt: null,
  });

  it.each([
    ['video in queue', video('queued', MINUTE), 'waiting', 'leave'],
    ['video polling (delayed)', video('running', MINUTE), 'delayed', 'leave'],
    ['video, queue entry gone', video('running', MINUTE), 'unknown', 'enqueue'],
    ['video, BullMQ failed', video('running', MINUTE), 'failed', 'requeue'],
    ['video, BullMQ completed', video('running', MINUTE), 'completed', 'requeue'],
    ['video past deadline, queued', video('queued', -1), 'waiting', 'fail'],
    ['video past deadline, gone', video('running', -1), 'unknown', 'fail'],
    ['video past deadline, held by a worker', video('running', -1), 'active', 'leave'],
    ['video stuck in a worker', video('running', -ACTIVE_VIDEO_GRACE_MS - 1), 'active', 'fail'],
    ['video completed (final)', video('completed', -1), null, 'leave'],
    ['image in queue', sync('queued', MINUTE), 'waiting', 'leave'],
    ['image, queue entry gone', sync('running', MINUTE), 'unknown', 'enqueue'],
    ['image completed, api waiting', sync('completed', MINUTE), null, 'leave'],
    ['image completed, api gone', sync('completed', abandonedAfterMs(WAIT_MS) + 1), null, 'discard'],
    ['image queued, api gone', sync('queued', abandonedAfterMs(WAIT_MS) + 1), 'waiting', 'cancel'],
    ['image running, api gone', sync('running', abandonedAfterMs(WAIT_MS) + 1), 'active', 'cancel'],
    ['image delivered', sync('delivered', 10 * MINUTE), null, 'leave'],
  ] as const)('%s', (_name, job, state, expected) => {
    expect(decide(job, state, now, settings)).toBe(expected);
  });

  it('waits as long again as the api (at most 30 s more) before a synchronous job counts as abandoned', () => {
    expect(abandonedAfterMs(120_000)).toBe(150_000);
    expect(abandonedAfterMs(2_000)).toBe(4_000);
  });
});
