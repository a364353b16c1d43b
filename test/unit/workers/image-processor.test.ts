/**
 * The image processor's bookkeeping around its side effects, with scripted collaborators (the
 * end-to-end tests run the real ones): the short-lived Redis copies it makes are dropped whenever
 * its attempt does not complete the job, and so are the PNGs it stored, under its own keys: never
 * those of another attempt that completed the job.
 */
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../shared/src/catalogue/load-catalogue.ts';
import { loadConfig } from '../../../shared/src/config/config.ts';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import type { MediaJobStatus } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { MediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import type { MediaWorkerDeps } from '../../../workers/src/media/media-worker-deps.ts';
import { imageProcessor } from '../../../workers/src/processors/image.processor.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { FIXTURE_NOW, imageJob } from '../../helpers/media-job-fixture.ts';
import { staticChannelRouting } from '../../helpers/static-channels.ts';

const now = FIXTURE_NOW;
const running = imageJob({
  model: 'demo/image',
  status: 'running',
  request: { kind: 'image', input: { prompt: 'a cat', n: 2 } },
});

interface Script {
  readonly put?: () => Promise<void>;
  /** What markCompleted does: complete, refuse (another state), or throw. */
  readonly complete?: 'ok' | 'refused' | 'throws';
  /** The job's status as read after a refused completion. */
  readonly statusAfter?: MediaJobStatus;
  /** Whether an api still waits for the job (default: it does). */
  readonly awaited?: boolean;
}

/** The PNGs of another attempt that completed the job first (its result names them). */
const WINNER_KEYS = ['jobs/img_1/0a0a0a0a0a0a/image-0.png', 'jobs/img_1/0a0a0a0a0a0a/image-1.png'];

function run(script: Script) {
  const calls: string[] = [];
  const put: string[] = [];
  const removed: string[] = [];
  let offered = 0;
  const deps: MediaWorkerDeps = {
    jobs: {
      markRunning: async () => running,
      markCompleted: async () => {
        if (script.complete === 'throws') throw new Error('MongoDB is away');
        return script.complete === 'refused' ? null : { ...running, status: 'completed' };
      },
      findById: async () => {
        const status = script.statusAfter ?? 'completed';
        const completed = status === 'completed' || status === 'delivered';
        const images = WINNER_KEYS.map((key) => ({ key, revisedPrompt: null }));
        return { ...running, status, result: completed ? { kind: 'image', provider: 'demo', images } : null };
      },
      markFailed: async () => null,
      markCancelled: async () => {
        calls.push('cancel');
        return { ...running, status: 'cancelled' };
      },
    } as unknown as MediaJobsRepository,
    storage: {
      put: async (key: string) => {
        put.push(key);
        await script.put?.();
      },
      remove: async (keys: readonly string[]) => {
        calls.push(`remove ${keys.length}`);
        removed.push(...keys);
      },
    } as unknown as MediaStorage,
    handoff: {
      offer: async () => `copy${++offered}`,
      take: async () => null,
      takeOr: (_name, read) => read(),
      drop: async (names) => {
        calls.push(`drop ${names.join(',')}`);
      },
    },
    waiters: { isAwaited: async () => script.awaited ?? true },
    billing: {
      settle: async () => ({}) as never,
      release: async () => {
        calls.push('release');
      },
    },
    client: {} as never,
    catalogue: loadCatalogue(),
    config: loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', MONGO_URL: 'mongodb://127.0.0.1:1' }),
    channels: staticChannelRouting([]),
    now: () => now,
    logger: captureLogger().logger,
  };
  const bullJob = {
    data: { jobId: 'img_1' },
    attemptsMade: 0,
    opts: { attempts: 3 },
  } as Job<MediaJobPayload>;
  return { outcome: imageProcessor(deps)(bullJob), calls, put, removed };
}

describe('image processor', () => {
  it('completes with the copies named in the result, dropping nothing', async () => {
    const { outcome, calls } = run({});
    await expect(outcome).resolves.toMatchObject({
      status: 'completed',
      result: { images: [{ handoff: 'copy1' }, { handoff: 'copy2' }] },
    });
    expect(calls).toEqual([]);
  });

  it('drops its copies when storing the PNGs fails (the job is retried)', async () => {
    const { outcome, calls } = run({ put: () => Promise.reject(new Error('S3 is away')) });
    await expect(outcome).rejects.toThrow('S3 is away');
    expect(calls).toEqual(['drop copy1,copy2']);
  });

  it('drops its copies when recording the completion fails', async () => {
    const { outcome, calls } = run({ complete: 'throws' });
    await expect(outcome).rejects.toThrow('MongoDB is away');
    expect(calls).toEqual(['drop copy1,copy2']);
  });

  it('a job the api gave up on loses its stored PNGs and copies', async () => {
    const { outcome, calls } = run({ complete: 'refused', statusAfter: 'cancelled' });
    await expect(outcome).resolves.toEqual({ status: 'discarded' });
    expect(calls.sort()).toEqual(['drop copy1,copy2', 'remove 2']);
  });

  it('a job no api waits for any more is cancelled and its hold released, the provider never called', async () => {
    const { outcome, calls, put } = run({ awaited: false });
    await expect(outcome).resolves.toEqual({ status: 'cancelled' });
    expect(calls).toEqual(['cancel', 'release']);
    expect(put).toEqual([]);
  });

  it('stores under keys of its own attempt: two runs of one job never write the same object', async () => {
    const first = run({});
    const second = run({});
    await Promise.all([first.outcome, second.outcome]);
    expect(first.put).toHaveLength(2);
    expect(first.put.every((key) => /^jobs\/img_1\/[0-9a-f]{12}\/image-[01]\.png$/.test(key))).toBe(true);
    expect(second.put.filter((key) => first.put.includes(key))).toEqual([]);
  });

  it("a job another attempt completed first: this attempt's PNGs and copies go, that attempt's stay", async () => {
    for (const status of ['completed', 'delivered'] as const) {
      const { outcome, calls, put, removed } = run({ complete: 'refused', statusAfter: status });
      await expect(outcome).resolves.toEqual({ status });
      expect(calls.sort()).toEqual(['drop copy1,copy2', 'remove 2']);
      expect(removed).toEqual(put);
      expect(removed.filter((key) => WINNER_KEYS.includes(key))).toEqual([]);
    }
  });
});
