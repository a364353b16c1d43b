import type { Worker } from 'bullmq';
import type { Config } from '../../shared/src/config/config.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { createMediaWorkerDeps } from '../../workers/src/media/create-media-worker-deps.ts';
import { createProcessors } from '../../workers/src/processors/processor-table.ts';
import { closeWorkers, runWorkers } from '../../workers/src/run-workers.ts';
import { captureLogger } from './capture-logger.ts';

export interface TestWorker {
  readonly workers: Worker[];
  close(): Promise<void>;
}

/** A worker wired as `workers/src/main.ts` wires it, in this process, on the given configuration. */
export async function startTestWorker(config: Config): Promise<TestWorker> {
  const logger = captureLogger('warn').logger;
  const connections = await openConnections(config, 'worker-test', logger);
  const media = await createMediaWorkerDeps(config, connections, logger);
  const connection = createRedis(config.redis, { forBullmq: true });
  const workers = runWorkers({
    connection,
    prefix: config.queues.bullmqPrefix,
    queues: config.worker.queues,
    concurrency: config.worker.concurrency,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    processors: createProcessors(media.deps),
    logger,
  });
  return {
    workers,
    async close() {
      await closeWorkers(workers);
      await connection.quit();
      await media.close();
      await closeConnections(connections);
    },
  };
}
