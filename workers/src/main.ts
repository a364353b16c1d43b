import { loadBaseCatalogue } from '../../shared/src/catalogue/live/open-live-catalogue.ts';
import { loadConfig } from '../../shared/src/config/config.ts';
import { createLogger } from '../../shared/src/logging/logger.ts';
import { startProcessObservability } from '../../shared/src/observability/process-observability.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { closeOnSignals, exitOnStartupFailure, inFlightGraceMs } from '../../shared/src/runtime/shutdown.ts';
import { installSecretScrubber } from '../../shared/src/upstream/secret-scrubber.ts';
import { createMediaWorkerDeps } from './media/create-media-worker-deps.ts';
import { createProcessors } from './processors/processor-table.ts';
import { startMediaReconciler } from './reconcile/start-reconciler.ts';
import { closeWorkers, runWorkers } from './run-workers.ts';

/** The worker process: one BullMQ worker per role in `WORKER_QUEUES`, concurrency per queue from config. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // Before anything logs: the configured credentials are scrubbed from every line from here on.
  installSecretScrubber(config);
  // The file and its default media models checked before any connection opens.
  loadBaseCatalogue(config);
  const logger = createLogger({ name: 'worker', level: config.logLevel });
  const observability = await startProcessObservability(config, 'worker', logger);
  const connections = await openConnections(config, 'worker', logger);
  // The channels, and the catalogue they serve as the operator changed it (like every api replica).
  const media = await createMediaWorkerDeps(config, connections, logger);
  const processors = createProcessors(media.deps);
  const bullmqConnection = createRedis(config.redis, {
    forBullmq: true,
    connectionName: 'worker-bullmq',
  });
  const workers = runWorkers({
    connection: bullmqConnection,
    prefix: config.queues.bullmqPrefix,
    queues: config.worker.queues,
    concurrency: config.worker.concurrency,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    processors,
    logger,
  });
  // Every media job ends: lost queue entries, passed deadlines, abandoned synchronous jobs.
  const reconciler = startMediaReconciler(config, connections.redis, media.deps, media.billing, logger);
  closeOnSignals(logger, config.shutdownTimeoutMs, async () => {
    await reconciler.close();
    // Active jobs may finish until the reserve for closing; the rest stay queued for another worker.
    await closeWorkers(workers, inFlightGraceMs(config.shutdownTimeoutMs));
    await bullmqConnection.quit();
    await media.close();
    await closeConnections(connections);
    await observability.close();
  });
  logger.info({ queues: config.worker.queues }, 'worker ready');
}

main().catch((err: unknown) => exitOnStartupFailure('worker', err));
