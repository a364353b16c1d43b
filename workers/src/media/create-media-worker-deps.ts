import { type Billing, createBilling } from '../../../shared/src/billing/billing.ts';
import { startRecoveryLoop } from '../../../shared/src/billing/recovery-loop.ts';
import {
  type OpenedLiveCatalogue,
  openLiveCatalogue,
} from '../../../shared/src/catalogue/live/open-live-catalogue.ts';
import { channelSecretOpener } from '../../../shared/src/channels/channel-secrets.ts';
import { type ProcessChannels, startProcessChannels } from '../../../shared/src/channels/process-channels.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import { configuredMediaHandoff } from '../../../shared/src/media-jobs/media-handoff.ts';
import { createMediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import { WaiterLeases } from '../../../shared/src/media-jobs/waiter-lease.ts';
import { createVideoRecords } from '../../../shared/src/request-log/video-records.ts';
import type { Connections } from '../../../shared/src/runtime/connections.ts';
import { withinMs } from '../../../shared/src/runtime/within.ts';
import { installSecretScrubber } from '../../../shared/src/upstream/secret-scrubber.ts';
import { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';
import type { MediaWorkerDeps } from './media-worker-deps.ts';

/** How long closing waits for the upstream calls still running (those of jobs left unfinished). */
const CLIENT_CLOSE_MS = 500;

/**
 * Wires the media processors' dependencies over a worker process's connections; `close` undoes it.
 * The channels start first: the live catalogue serves a provider's models while it has an enabled
 * channel, and follows the operator's changes like every api replica.
 */
export async function createMediaWorkerDeps(
  config: Config,
  connections: Connections,
  logger: Logger,
): Promise<{
  deps: MediaWorkerDeps;
  billing: Billing;
  channels: ProcessChannels;
  catalogue: OpenedLiveCatalogue;
  close(): Promise<void>;
}> {
  // The configured credentials, scrubbed by value from upstream text, job errors and log lines.
  installSecretScrubber(config, logger);
  const billing = createBilling({ money: connections.store.money, redis: connections.redis, config, logger });
  const client = new UpstreamClient(config.upstream);
  // Every channel readable before the first job (else the start stops naming it).
  const channels = await startProcessChannels({
    config,
    repository: connections.store.channels,
    openSecret: channelSecretOpener(config),
    redis: connections.redis,
    logger,
  });
  const catalogue = await openLiveCatalogue(
    config,
    connections.store.catalogueOverrides,
    connections.redis,
    channels.providers,
    logger,
  );
  await catalogue.start();
  const stopRecovery = startRecoveryLoop(billing, logger);
  // REQUEST_LOG_ENABLED=false: the api makes no record, so no video's record is completed.
  const videoRecords = config.requestLog.enabled ? createVideoRecords(config, logger) : undefined;
  const deps: MediaWorkerDeps = {
    jobs: connections.store.mediaJobs,
    storage: createMediaStorage(connections.s3, config.s3.bucket),
    handoff: configuredMediaHandoff(connections.redis, config, logger),
    waiters: new WaiterLeases(connections.redis, {
      prefix: config.queues.prefix,
      leaseMs: config.media.waiterLeaseMs,
    }),
    billing,
    client,
    catalogue,
    channels: channels.routing,
    config,
    now: () => new Date(),
    logger,
    videoRecords,
  };
  return {
    deps,
    billing,
    channels,
    catalogue,
    async close() {
      stopRecovery();
      await catalogue.close();
      catalogue.closeSubscriber();
      await channels.close();
      // Video charges settle here: what a settlement left to finish is written before the exit.
      await billing.close();
      // Calls of jobs the stop left unfinished are not waited for: their jobs are rerun elsewhere.
      await withinMs(client.close(), CLIENT_CLOSE_MS);
      if (videoRecords !== undefined) await withinMs(videoRecords.close(), CLIENT_CLOSE_MS);
    },
  };
}
