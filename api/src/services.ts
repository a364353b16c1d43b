import { type Accounts, createAccounts } from '../../shared/src/accounts/accounts.ts';
import { type Billing, createBilling } from '../../shared/src/billing/billing.ts';
import { startRecoveryLoop } from '../../shared/src/billing/recovery-loop.ts';
import type { Config } from '../../shared/src/config/config.ts';
import { closeQueues, createQueues } from '../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { configuredMediaHandoff } from '../../shared/src/media-jobs/media-handoff.ts';
import { createMediaJobsRepository } from '../../shared/src/media-jobs/media-jobs.repository.ts';
import { createMediaStorage } from '../../shared/src/media-jobs/media-storage.ts';
import { createRedis, type Redis } from '../../shared/src/redis/redis.ts';
import type { Connections } from '../../shared/src/runtime/connections.ts';
import { withinMs } from '../../shared/src/runtime/within.ts';
import { UpstreamClient } from '../../shared/src/upstream/upstream-client.ts';
import { JobWaiter } from './media/job-waiter.ts';
import type { MediaDeps } from './media/run-sync-job.ts';

/** The api's stateful modules, built once per process over its connections. */
export interface ApiServices {
  readonly accounts: Accounts;
  readonly billing: Billing;
  /** Pooled keep-alive connections to every upstream provider. */
  readonly upstream: UpstreamClient;
  /** Media jobs: documents, storage, queues and the waiter of synchronous requests. */
  readonly media: MediaDeps;
  close(): Promise<void>;
}

/** The queues whose jobs an api request waits for (video answers at once). */
const SYNCHRONOUS_QUEUES = ['image', 'speech', 'transcription'] as const;

/** Wires accounts (with the key cache subscribed) and billing; `close` undoes it. */
export async function createApiServices(
  config: Config,
  connections: Connections,
  logger: Logger,
): Promise<ApiServices> {
  const subscriber: Redis = createRedis(config.redis.url, { connectionName: 'key-cache' });
  const accounts = createAccounts({
    db: connections.mongo.db,
    redis: connections.redis,
    subscriberRedis: subscriber,
    config,
    logger,
  });
  const billing = createBilling({ db: connections.mongo.db, redis: connections.redis, config, logger });
  const upstream = new UpstreamClient(config.upstream);
  const queueConnection = createRedis(config.redis.url, { forBullmq: true, connectionName: 'api-queues' });
  const queues = createQueues(queueConnection, config.queues.prefix);
  const waiter = new JobWaiter(config.redis.url, config.queues.prefix, SYNCHRONOUS_QUEUES);
  const media: MediaDeps = {
    jobs: createMediaJobsRepository(connections.mongo.db),
    storage: createMediaStorage(connections.s3, config.s3.bucket),
    handoff: configuredMediaHandoff(connections.redis, config, logger),
    queues,
    waiter,
    billing,
    waitTimeoutMs: config.media.waitTimeoutMs,
    logger,
    now: accounts.clock,
  };
  await Promise.all([accounts.keyCache.start(), waiter.start()]);
  const stopRecovery = startRecoveryLoop(billing, logger);
  return {
    accounts,
    billing,
    upstream,
    media,
    async close() {
      stopRecovery();
      // Deferred settlements still in memory are written before the connections close.
      await billing.close();
      await upstream.close();
      await waiter.close();
      await closeQueues(queues);
      queueConnection.disconnect();
      await withinMs(accounts.keyCache.close(), 2_000);
      subscriber.disconnect();
    },
  };
}
