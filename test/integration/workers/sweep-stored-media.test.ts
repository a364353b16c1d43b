/**
 * The sweep of stored media (workers/src/reconcile/sweep-stored-media.ts) on a real SQLite store and
 * a real S3 bucket (s3rver): only media someone may still fetch stays.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaJobResult, MediaKind } from '../../../shared/src/media-jobs/media-job.ts';
import {
  createMediaStorage,
  jobIdOfKey,
  type MediaStorage,
  mediaKeys,
} from '../../../shared/src/media-jobs/media-storage.ts';
import { connectS3, type S3Connection } from '../../../shared/src/storage/s3-connection.ts';
import { openSqliteStore } from '../../../shared/src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../../shared/src/store/store.ts';
import { startPassLoop } from '../../../workers/src/reconcile/pass-loop.ts';
import { startMediaReconciler } from '../../../workers/src/reconcile/start-reconciler.ts';
import {
  mediaStillNeeded,
  SWEEP_GRACE_MS,
  type SweepDeps,
  sweepStoredMedia,
} from '../../../workers/src/reconcile/sweep-stored-media.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { imageJob, JOB_REQUESTS, newJobId } from '../../helpers/media-job-fixture.ts';
import { testConfig } from '../../helpers/test-config.ts';
import { billingFixture } from '../shared/billing/billing-fixture.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

let store: Store;
let s3: S3Connection;
let storage: MediaStorage;
let bucket: string;

beforeAll(async () => {
  store = openSqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'gw-sweep-')), 'gateway.db'),
    busyTimeoutMs: 5_000,
  });
  const config = testConfig();
  bucket = config.s3.bucket;
  s3 = connectS3(config.s3, bucket);
  await s3.use();
  storage = createMediaStorage(s3, bucket);
});

afterAll(async () => {
  s3.destroy();
  await store.close();
});

/** The sweep as a worker runs it, `laterMs` from now (so objects written now are that old). */
function deps(laterMs: number, pageSize?: number): SweepDeps {
  return {
    jobs: store.mediaJobs,
    storage,
    now: () => new Date(Date.now() + laterMs),
    logger: captureLogger('silent').logger,
    pageSize,
  };
}

type Step =
  | 'queued'
  | 'running'
  | 'completed'
  | 'delivered'
  | 'failed'
  | 'cancelled'
  | 'discarded'
  | 'deleted';

/**
 * A job of `kind` brought to `step`, with the objects its kind stores written to the bucket (by
 * `options.attempts` attempts, the first of which completes it when it completes).
 */
async function jobWithMedia(
  kind: MediaKind,
  step: Step,
  options: { expiresInMs?: number; attempts?: number } = {},
) {
  const id = newJobId(kind);
  const accountId = `acct_${randomBytes(4).toString('hex')}`;
  const jobs = store.mediaJobs;
  const now = new Date();
  await jobs.insertQueued(
    {
      id,
      accountId,
      keyId: 'key_1',
      model: 'demo/x',
      request: JOB_REQUESTS[kind],
      holdMicros: 1n,
      deadlineAt: null,
    },
    now,
  );
  const attempts = Array.from({ length: options.attempts ?? 1 }, (_, i) => `attempt-${i + 1}`);
  const keysByAttempt = attempts.map((attempt) => objectKeysOf(kind, id, attempt));
  const keys = keysByAttempt.flat();
  for (const key of keys) await storage.put(key, new Uint8Array([1, 2, 3]), 'application/octet-stream');
  const [winner = ''] = keysByAttempt[0] ?? [];
  if (step !== 'queued' && step !== 'cancelled') await jobs.markRunning(id, now);
  if (step === 'failed')
    await jobs.markFailed(id, { message: 'x', status: 502, type: 'upstream_error', code: 'x' }, now);
  if (step === 'cancelled') await jobs.markCancelled(id, now);
  if (['completed', 'delivered', 'discarded', 'deleted'].includes(step)) {
    // The result names the first attempt's object (the sweep keeps, of a completed job, only what
    // its result names; a transcription's upload whatever its result).
    const result: MediaJobResult =
      kind === 'video'
        ? { kind: 'video', key: winner, sizeBytes: 3, seconds: 4 }
        : { kind: 'speech', key: winner, characters: 5 };
    const expiresAt =
      options.expiresInMs === undefined ? null : new Date(now.getTime() + options.expiresInMs);
    await jobs.markCompleted(id, result, null, expiresAt, now);
  }
  if (step === 'delivered') await jobs.markDelivered(id, 1n, now);
  if (step === 'discarded') await jobs.markDiscarded(id, now);
  if (step === 'deleted') await jobs.markDeleted(id, accountId, now);
  return { id, keys, keysByAttempt };
}

function objectKeysOf(kind: MediaKind, id: string, attempt: string): string[] {
  if (kind === 'image') return [mediaKeys.image(id, attempt, 0), mediaKeys.image(id, attempt, 1)];
  if (kind === 'speech') return [mediaKeys.speech(id, attempt)];
  if (kind === 'transcription') return [mediaKeys.upload(id)];
  return [mediaKeys.video(id, attempt)];
}

async function stored(keys: readonly string[]): Promise<boolean[]> {
  return Promise.all(keys.map(async (key) => (await storage.read(key)) !== null));
}

describe('which media a job still needs', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const later = new Date(now.getTime() + DAY);
  const earlier = new Date(now.getTime() - 1);

  it('keeps what is being made or about to be delivered, and a finished video until it expires', () => {
    for (const status of ['queued', 'running', 'completed'] as const)
      expect(mediaStillNeeded(imageJob({ status }), now)).toBe(true);
    for (const status of ['queued', 'running', 'completed', 'delivered'] as const)
      expect(mediaStillNeeded(imageJob({ kind: 'video', status, expiresAt: later }), now)).toBe(true);
    expect(mediaStillNeeded(imageJob({ kind: 'video', status: 'completed', expiresAt: null }), now)).toBe(
      true,
    );
  });

  it('lets go of delivered and ended synchronous jobs, expired, failed or deleted videos, and no job at all', () => {
    for (const status of ['delivered', 'failed', 'cancelled', 'discarded'] as const)
      expect(mediaStillNeeded(imageJob({ status }), now)).toBe(false);
    expect(mediaStillNeeded(imageJob({ kind: 'video', status: 'completed', expiresAt: earlier }), now)).toBe(
      false,
    );
    expect(mediaStillNeeded(imageJob({ kind: 'video', status: 'delivered', expiresAt: now }), now)).toBe(
      false,
    );
    expect(mediaStillNeeded(imageJob({ kind: 'video', status: 'failed' }), now)).toBe(false);
    expect(
      mediaStillNeeded(
        imageJob({ kind: 'video', status: 'completed', expiresAt: later, deletedAt: now }),
        now,
      ),
    ).toBe(false);
    expect(mediaStillNeeded(null, now)).toBe(false);
  });

  it('reads the job of an object from its key', () => {
    expect(jobIdOfKey(mediaKeys.image('img_a', 'f00d', 3))).toBe('img_a');
    expect(jobIdOfKey(mediaKeys.upload('stt_b'))).toBe('stt_b');
    expect(jobIdOfKey(mediaKeys.video('video_c', 'f00d'))).toBe('video_c');
    expect(jobIdOfKey('jobs/')).toBeUndefined();
    expect(jobIdOfKey('elsewhere/x/y')).toBeUndefined();
  });
});

describe('a sweep of the bucket', () => {
  it('deletes, once past the grace, the media no job needs and keeps the rest', async () => {
    const kept = await Promise.all([
      jobWithMedia('image', 'running'),
      jobWithMedia('speech', 'completed'),
      jobWithMedia('transcription', 'queued'),
      jobWithMedia('video', 'completed', { expiresInMs: 7 * DAY }),
      jobWithMedia('video', 'delivered', { expiresInMs: 7 * DAY }),
    ]);
    const gone = await Promise.all([
      jobWithMedia('image', 'delivered'),
      jobWithMedia('speech', 'discarded'),
      jobWithMedia('transcription', 'cancelled'),
      jobWithMedia('image', 'failed'),
      jobWithMedia('video', 'completed', { expiresInMs: HOUR }),
      jobWithMedia('video', 'deleted', { expiresInMs: 7 * DAY }),
    ]);
    // Objects whose job never existed: an upload whose api died first, a worker's leftovers.
    const orphans = [mediaKeys.upload(newJobId('transcription')), mediaKeys.image('img_gone', 'f00d', 0)];
    for (const key of orphans) await storage.put(key, new Uint8Array([1]), 'application/octet-stream');
    // Not the gateway's: left alone.
    await storage.put('elsewhere/notes.txt', new Uint8Array([1]), 'text/plain');

    // Within the grace nothing goes, whatever the jobs say.
    expect((await sweepStoredMedia(deps(0))).removed).toBe(0);
    expect(await stored(gone.flatMap((job) => job.keys))).not.toContain(false);

    // Two hours on, in pages of 3 (the listing's continuation with deletions between pages).
    const reads: string[] = [];
    const counted: SweepDeps = {
      ...deps(SWEEP_GRACE_MS + HOUR, 3),
      jobs: {
        findById: (id) => {
          reads.push(id);
          return store.mediaJobs.findById(id);
        },
      },
    };
    const report = await sweepStoredMedia(counted);
    // Each job read once, an image job's two objects (on two pages or one) included.
    expect(reads.length).toBe(new Set(reads).size);
    expect(reads).toHaveLength(kept.length + gone.length + orphans.length);
    const goneKeys = [...gone.flatMap((job) => job.keys), ...orphans];
    expect(report.removed).toBe(goneKeys.length);
    expect(await stored(goneKeys)).toEqual(goneKeys.map(() => false));
    expect(await stored(kept.flatMap((job) => job.keys))).not.toContain(false);
    expect(await stored(['elsewhere/notes.txt'])).toEqual([true]);

    // A second sweep finds nothing left to do.
    expect((await sweepStoredMedia(deps(SWEEP_GRACE_MS + HOUR, 3))).removed).toBe(0);
  });

  it("deletes, once a job completed, what its other attempts stored, and keeps its result's objects", async () => {
    const video = await jobWithMedia('video', 'completed', { expiresInMs: 7 * DAY, attempts: 2 });
    const speech = await jobWithMedia('speech', 'completed', { attempts: 3 });
    // Not final yet: every attempt may still be writing.
    const running = await jobWithMedia('image', 'running', { attempts: 2 });
    const report = await sweepStoredMedia(deps(SWEEP_GRACE_MS + HOUR));
    expect(report.removed).toBe(1 + 2);
    for (const job of [video, speech]) {
      const [named, ...others] = job.keysByAttempt;
      expect(await stored(named ?? [])).toEqual([true]);
      expect(await stored(others.flat())).toEqual(others.flat().map(() => false));
    }
    expect(await stored(running.keys)).toEqual([true, true, true, true]);
  });

  it('deletes a finished video once its expiry has passed', async () => {
    const video = await jobWithMedia('video', 'completed', { expiresInMs: 3 * HOUR });
    await sweepStoredMedia(deps(2 * HOUR));
    expect(await stored(video.keys)).toEqual([true]);
    await sweepStoredMedia(deps(3 * HOUR + 1));
    expect(await stored(video.keys)).toEqual([false]);
  });

  it('a storage failure fails the pass, which the loop reports and runs again later', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const failing: SweepDeps = {
      ...deps(SWEEP_GRACE_MS + HOUR),
      storage: {
        list: storage.list,
        remove: async () => {
          calls += 1;
          throw new Error('S3 is down');
        },
      },
    };
    const job = await jobWithMedia('speech', 'delivered');
    const loop = startPassLoop(() => sweepStoredMedia(failing), {
      intervalMs: 3_600_000,
      onError: (err) => errors.push(err),
    });
    expect(await loop.runOnce()).toBeNull();
    await loop.stop();
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    expect(await stored(job.keys)).toEqual([true]);
    // Once S3 answers, the next pass deletes it.
    await sweepStoredMedia(deps(SWEEP_GRACE_MS + HOUR));
    expect(await stored(job.keys)).toEqual([false]);
  });
});

describe('in the worker process', () => {
  it('every replica runs the sweep; within an interval one pass stands for all of them', async () => {
    const fx = await billingFixture({ env: { MEDIA_SWEEP_INTERVAL_MS: '3600000' } });
    const { logger } = captureLogger('silent');
    const bucketStorage = createMediaStorage(s3, bucket);
    const media = { jobs: fx.store.mediaJobs, storage: bucketStorage, handoff: { drop: async () => {} } };
    const [a, b] = [0, 1].map(() => startMediaReconciler(fx.config, fx.redis, media, fx.billing, logger));
    try {
      const first = await a?.sweeper.runOnce();
      expect(first).toMatchObject({ removed: expect.any(Number), checked: expect.any(Number) });
      expect(await b?.sweeper.runOnce()).toBeNull();
      // The reconciler's lock is its own.
      expect(await b?.loop.runOnce()).not.toBeNull();
    } finally {
      await Promise.all([a?.close(), b?.close()]);
      await fx.close();
    }
  });
});
