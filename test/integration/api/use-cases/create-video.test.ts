import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionContext } from '../../../../api/src/admission/admission-context.ts';
import { type CreateVideoDeps, createVideo } from '../../../../api/src/use-cases/create-video.ts';
import type { TransferHoldInput } from '../../../../shared/src/billing/billing.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { createQueues } from '../../../../shared/src/jobs/job-catalogue.ts';
import { VIDEO_HOLD_MARGIN_MS } from '../../../../shared/src/media-jobs/video-hold.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { newJobId } from '../../../helpers/media-job-fixture.ts';
import { newAccountId } from '../../../helpers/stored-video.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

// The real store (SQLite file), queues (Redis) and billing of a test app.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const found = loadCatalogue().get('demo/video');
if (found === undefined) throw new Error('the catalogue has no demo/video');
const model = found;
const video = { prompt: 'waves at dusk', duration: 4, aspect_ratio: '9:16' } as const;
const DEADLINE_MS = 30 * 60 * 1000;
const HOLD_MICROS = 4_000_000n;
/** How ioredis refuses a command on a connection that is not up (the api answers it 503). */
const REDIS_DOWN = "Stream isn't writeable and enableOfflineQueue options is false";

/** A request admitted by the real billing: its account funded, its hold taken (a lease of this process). */
async function admitted(): Promise<AdmissionContext> {
  const accountId = newAccountId();
  const keyId = `key_${randomBytes(4).toString('hex')}`;
  const holdId = newJobId('video');
  const { billing } = t.services;
  await billing.topUp({ accountId, amountMicros: 1_000_000_000n, idempotencyKey: `topup_${holdId}` });
  const admit = await billing.admit({
    requestId: holdId,
    accountId,
    keyId,
    rateLimit: 60,
    monthlyCapMicros: null,
    modelAllowed: true,
    estimateMicros: HOLD_MICROS,
  });
  expect(admit.outcome).toBe('admitted');
  return {
    key: { id: keyId, accountId },
    holdId,
    estimateMicros: HOLD_MICROS,
    rateLimit: { limit: 60, remaining: 59 },
    holdOwner: 'request',
  } as AdmissionContext;
}

/** The test app's collaborators; `transfers` records each hold handed to a job (then hands it). */
function collaborators(overrides: Partial<CreateVideoDeps> = {}) {
  const transfers: TransferHoldInput[] = [];
  const now = new Date();
  const deps: CreateVideoDeps = {
    jobs: t.services.media.jobs,
    queues: t.services.media.queues,
    billing: {
      transferHold: (input) => {
        transfers.push(input);
        return t.services.billing.transferHold(input);
      },
    },
    deadlineMs: DEADLINE_MS,
    clock: () => now,
    ...overrides,
  };
  return { deps, transfers, now, log: captureLogger() };
}

/** Queues on a Redis connection that is closed: every enqueue fails at once, as in an outage. */
async function closedQueues() {
  const redis = createRedis(t.config.redis);
  await redis.ping();
  await redis.quit();
  return createQueues(redis, t.config.queues.prefix);
}

describe('createVideo', () => {
  it('records the job, enqueues it under its id, then hands the hold to it until the deadline plus the margin', async () => {
    const admission = await admitted();
    const { deps, transfers, now, log } = collaborators();
    const job = await createVideo(deps, { admission, model, video, log: log.logger });

    expect(job).toMatchObject({
      id: admission.holdId,
      kind: 'video',
      accountId: admission.key.accountId,
      keyId: admission.key.id,
      model: 'demo/video',
      status: 'queued',
      request: { kind: 'video', input: video },
      holdMicros: HOLD_MICROS,
      deadlineAt: new Date(now.getTime() + DEADLINE_MS),
    });
    expect(await t.services.media.jobs.findById(job.id)).toEqual(job);
    expect((await t.services.media.queues.video.getJob(job.id))?.data).toMatchObject({ jobId: job.id });
    expect(admission.holdOwner).toBe('job');
    expect(transfers).toEqual([
      {
        requestId: job.id,
        accountId: admission.key.accountId,
        keyId: admission.key.id,
        ttlMs: DEADLINE_MS + VIDEO_HOLD_MARGIN_MS,
      },
    ]);
    expect(log.lines()).toEqual([]);
  });

  it('cancels the job when it cannot be enqueued, and throws the enqueue’s error; the hold stays the request’s', async () => {
    const admission = await admitted();
    const { deps, transfers, log } = collaborators({ queues: await closedQueues() });
    await expect(createVideo(deps, { admission, model, video, log: log.logger })).rejects.toThrow(REDIS_DOWN);

    const job = await t.services.media.jobs.findById(admission.holdId);
    expect(job?.status).toBe('cancelled');
    // A worker or the reconciler finding it later cannot take it: it is no longer queued.
    expect(await t.services.media.jobs.markRunning(admission.holdId, new Date())).toBeNull();
    expect(await t.services.media.queues.video.getJob(admission.holdId)).toBeUndefined();
    expect(admission.holdOwner).toBe('request');
    expect(transfers).toEqual([]);
    expect(log.lines()).toEqual([]);
  });

  it('logs a job that cannot be cancelled either, and still throws the enqueue’s error', async () => {
    const admission = await admitted();
    const jobs = {
      ...t.services.media.jobs,
      markCancelled: () => Promise.reject(new Error('the store is unreachable')),
    };
    const { deps, log } = collaborators({ jobs, queues: await closedQueues() });
    await expect(createVideo(deps, { admission, model, video, log: log.logger })).rejects.toThrow(REDIS_DOWN);

    expect((await t.services.media.jobs.findById(admission.holdId))?.status).toBe('queued');
    expect(admission.holdOwner).toBe('request');
    expect(log.lines()).toEqual([
      expect.objectContaining({
        level: 50,
        jobId: admission.holdId,
        err: expect.objectContaining({ message: 'the store is unreachable' }),
        msg: 'a video whose enqueue failed could not be cancelled',
      }),
    ]);
  });

  it('still starts the video when its hold cannot be handed over, and logs that it stays a lease', async () => {
    const admission = await admitted();
    const billing = { transferHold: () => Promise.reject(new Error('Redis did not answer in time')) };
    const { deps, log } = collaborators({ billing });
    const job = await createVideo(deps, { admission, model, video, log: log.logger });

    expect(job.status).toBe('queued');
    expect((await t.services.media.queues.video.getJob(job.id))?.data).toMatchObject({ jobId: job.id });
    expect(admission.holdOwner).toBe('job');
    expect(log.lines()).toEqual([
      expect.objectContaining({
        level: 40,
        err: expect.objectContaining({ message: 'Redis did not answer in time' }),
        msg: 'video hold left a lease of this process',
      }),
    ]);
  });
});
