import { randomBytes } from 'node:crypto';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { closeQueues, createQueues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import type { MediaHandoff } from '../../../shared/src/media-jobs/media-handoff.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import type { PassLoop } from './pass-loop.ts';
import { type ReconcilerLoop, startReconciler } from './reconcile-media-jobs.ts';
import { type SweepReport, startMediaSweeper } from './sweep-stored-media.ts';

/**
 * The worker process's reconciler (reconcile-media-jobs.ts), every `RECONCILE_INTERVAL_MS`, over
 * producer handles of every queue (whatever roles this worker has), and its sweep of stored media
 * (sweep-stored-media.ts), every `MEDIA_SWEEP_INTERVAL_MS`. Every replica runs both; a Redis lock
 * held for most of an interval lets one pass stand for all of them. `close` stops them.
 */
export function startMediaReconciler(
  config: Config,
  redis: Redis,
  media: Pick<MediaWorkerDeps, 'jobs' | 'storage' | 'videoRecords'> & {
    readonly handoff: Pick<MediaHandoff, 'drop'>;
  },
  billing: Pick<Billing, 'release' | 'restoreHold'>,
  logger: Logger,
): { loop: ReconcilerLoop; sweeper: PassLoop<SweepReport>; close(): Promise<void> } {
  const connection = createRedis(config.redis, { forBullmq: true, connectionName: 'worker-reconciler' });
  const queues = createQueues(connection, config.queues.bullmqPrefix);
  const intervalMs = config.worker.reconcileIntervalMs;
  const token = randomBytes(8).toString('hex');
  /** Held for most of an interval: the pass of whoever took it stands for every replica's. */
  const lockFor = (name: string, everyMs: number) => async () =>
    (await redis.set(
      `${config.queues.prefix}:${name}:lock`,
      token,
      'PX',
      Math.max(1, Math.floor(everyMs * 0.9)),
      'NX',
    )) === 'OK';
  const loop = startReconciler(
    {
      jobs: media.jobs,
      queues,
      storage: media.storage,
      handoff: media.handoff,
      billing,
      settings: {
        waitTimeoutMs: config.media.waitTimeoutMs,
        videoDeadlineMs: config.media.videoDeadlineMs,
        minAgeMs: intervalMs,
      },
      now: () => new Date(),
      logger: logger.child({ module: 'reconciler' }),
      videoRecords: media.videoRecords,
    },
    intervalMs,
    lockFor('reconcile', intervalMs),
  );
  const sweepIntervalMs = config.worker.mediaSweepIntervalMs;
  const sweeper = startMediaSweeper(
    {
      jobs: media.jobs,
      storage: media.storage,
      now: () => new Date(),
      logger: logger.child({ module: 'media-sweep' }),
    },
    sweepIntervalMs,
    lockFor('media-sweep', sweepIntervalMs),
  );
  return {
    loop,
    sweeper,
    async close() {
      await Promise.all([loop.stop(), sweeper.stop()]);
      await closeQueues(queues);
      connection.disconnect();
    },
  };
}
