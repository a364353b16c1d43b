import { randomBytes } from 'node:crypto';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { closeQueues, createQueues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { type ReconcilerLoop, startReconciler } from './reconcile-media-jobs.ts';

/**
 * The worker process's reconciler (reconcile-media-jobs.ts), every `RECONCILE_INTERVAL_MS`, over
 * producer handles of every queue (whatever roles this worker has). Every replica runs one; a
 * Redis lock held for most of an interval lets one pass stand for all of them. `close` stops it.
 */
export function startMediaReconciler(
  config: Config,
  redis: Redis,
  media: Pick<MediaWorkerDeps, 'jobs' | 'storage' | 'handoff' | 'logger'>,
  billing: Pick<Billing, 'release' | 'restoreHold'>,
  logger: Logger,
): { loop: ReconcilerLoop; close(): Promise<void> } {
  const connection = createRedis(config.redis.url, { forBullmq: true, connectionName: 'worker-reconciler' });
  const queues = createQueues(connection, config.queues.prefix);
  const intervalMs = config.worker.reconcileIntervalMs;
  const lockKey = `${config.queues.prefix}:reconcile:lock`;
  const token = randomBytes(8).toString('hex');
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
    },
    intervalMs,
    async () =>
      (await redis.set(lockKey, token, 'PX', Math.max(1, Math.floor(intervalMs * 0.9)), 'NX')) === 'OK',
  );
  return {
    loop,
    async close() {
      await loop.stop();
      await closeQueues(queues);
      connection.disconnect();
    },
  };
}
