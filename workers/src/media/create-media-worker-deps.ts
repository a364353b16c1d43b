import { createBilling } from '../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import { createMediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { createMediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import type { Connections } from '../../../shared/src/runtime/connections.ts';
import { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';
import type { MediaWorkerDeps } from './media-worker-deps.ts';

/** How often a worker re-drives charges a crashed process left half-applied. */
const RECOVERY_INTERVAL_MS = 60_000;

/** Wires the media processors' dependencies over a worker process's connections; `close` undoes it. */
export function createMediaWorkerDeps(
  config: Config,
  connections: Connections,
  catalogue: Catalogue,
  logger: Logger,
): { deps: MediaWorkerDeps; close(): Promise<void> } {
  const billing = createBilling({ db: connections.mongo.db, redis: connections.redis, config, logger });
  const client = new UpstreamClient(config.upstream);
  const recovery = setInterval(() => {
    billing
      .recoverPendingEntries(RECOVERY_INTERVAL_MS)
      .catch((err: unknown) => logger.error({ err }, 'recovering pending ledger entries failed'));
  }, RECOVERY_INTERVAL_MS);
  recovery.unref();
  const deps: MediaWorkerDeps = {
    jobs: createMediaJobsRepository(connections.mongo.db),
    storage: createMediaStorage(connections.s3, config.s3.bucket),
    billing,
    client,
    catalogue,
    config,
    now: () => new Date(),
    logger,
  };
  return {
    deps,
    async close() {
      clearInterval(recovery);
      // Video charges settle here: what a settlement left to finish is written before the exit.
      await billing.close();
      await client.close();
    },
  };
}
