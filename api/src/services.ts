import { type Accounts, createAccounts } from '../../shared/src/accounts/accounts.ts';
import { type Billing, createBilling } from '../../shared/src/billing/billing.ts';
import { startRecoveryLoop } from '../../shared/src/billing/recovery-loop.ts';
import {
  type CatalogueAdmin,
  createCatalogueAdmin,
} from '../../shared/src/catalogue/live/catalogue-admin.ts';
import type { LiveCatalogue } from '../../shared/src/catalogue/live/live-catalogue.ts';
import { openLiveCatalogue } from '../../shared/src/catalogue/live/open-live-catalogue.ts';
import { channelSecretOpener } from '../../shared/src/channels/channel-secrets.ts';
import { type ProcessChannels, startProcessChannels } from '../../shared/src/channels/process-channels.ts';
import type { Config } from '../../shared/src/config/config.ts';
import { closeQueues, createQueues } from '../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { configuredMediaHandoff } from '../../shared/src/media-jobs/media-handoff.ts';
import { createMediaStorage } from '../../shared/src/media-jobs/media-storage.ts';
import { WaiterLeases } from '../../shared/src/media-jobs/waiter-lease.ts';
import { trackQueues } from '../../shared/src/observability/queue-metrics.ts';
import { startPaymentReconciler } from '../../shared/src/payments/payment-settlement.ts';
import { createRedis, type Redis } from '../../shared/src/redis/redis.ts';
import { openRequestLogOrStandIn } from '../../shared/src/request-log/open-request-log.ts';
import { RequestLogWriter } from '../../shared/src/request-log/request-log-writer.ts';
import { startRetention } from '../../shared/src/request-log/retention.ts';
import type { Connections } from '../../shared/src/runtime/connections.ts';
import { withinMs } from '../../shared/src/runtime/within.ts';
import { installSecretScrubber } from '../../shared/src/upstream/secret-scrubber.ts';
import { UpstreamClient } from '../../shared/src/upstream/upstream-client.ts';
import { type ConsoleServices, createConsoleServices } from './console/console-services.ts';
import type { PasswordHasher } from './console/password-hasher.ts';
import { JobWaiter } from './media/job-waiter.ts';
import { createSelfServeServices, type SelfServeServices } from './self-serve/self-serve-services.ts';
import type { MediaDeps } from './use-cases/run-sync-job.ts';

/** The api's stateful modules, built once per process over its connections. */
export interface ApiServices {
  readonly accounts: Accounts;
  readonly billing: Billing;
  /** The catalogue as the operator changed it, followed on every replica (docs/catalogue.md). */
  readonly catalogue: LiveCatalogue;
  /** The operator's changes to it (operator API and console). */
  readonly catalogueAdmin: CatalogueAdmin;
  /** Pooled keep-alive connections to every upstream provider. */
  readonly upstream: UpstreamClient;
  /** Media jobs: documents, storage, queues and the waiter of synchronous requests. */
  readonly media: MediaDeps;
  /** The web console's sessions, sign-in limits, passwords and links (docs/console.md). */
  readonly console: ConsoleServices;
  /** Sign-up and reset by email, Zarinpal top-ups, vouchers (docs/payments.md). */
  readonly selfServe: SelfServeServices;
  /** The request log (docs/request-log.md): records queued off the request path, its store read. */
  readonly requestLog: RequestLogWriter;
  /** The upstream channels: routing, breakers, figures, and the operator's control (docs/channels.md). */
  readonly channels: ProcessChannels;
  close(): Promise<void>;
}

/** What a test may replace in the wiring. */
export interface ApiServicesOverrides {
  /** The console's password hasher (tests of many sign-ins use a cheaper scrypt cost). */
  readonly passwordHasher?: PasswordHasher;
}

/** The queues whose jobs an api request waits for (video answers at once). */
const SYNCHRONOUS_QUEUES = ['image', 'speech', 'transcription'] as const;

/** Wires accounts (with the key cache subscribed) and billing; `close` undoes it. */
export async function createApiServices(
  config: Config,
  connections: Connections,
  logger: Logger,
  overrides: ApiServicesOverrides = {},
): Promise<ApiServices> {
  // The configured credentials, scrubbed by value from upstream text and log lines from now on.
  installSecretScrubber(config, logger);
  const subscriber: Redis = createRedis(config.redis, { connectionName: 'key-cache' });
  const accounts = createAccounts({
    store: connections.store,
    redis: connections.redis,
    subscriberRedis: subscriber,
    config,
    logger,
  });
  const billing = createBilling({ money: connections.store.money, redis: connections.redis, config, logger });
  const upstream = new UpstreamClient(config.upstream);
  // Before any route: every channel readable (else the start stops naming it), credentials scrubbed.
  const channels = await startProcessChannels({
    config,
    repository: connections.store.channels,
    openSecret: channelSecretOpener(config),
    redis: connections.redis,
    subscriber,
    logger,
  });
  // Served by the channels: a provider's models are available while it has an enabled channel.
  const catalogue = await openLiveCatalogue(
    config,
    connections.store.catalogueOverrides,
    connections.redis,
    channels.providers,
    logger,
  );
  // The api only adds jobs (no blocking commands): its queue connection fails fast like the api's
  // own, so a request whose enqueue meets a Redis outage answers 503 instead of waiting for Redis.
  const queueConnection = createRedis(config.redis, { connectionName: 'api-queues' });
  const queues = createQueues(queueConnection, config.queues.bullmqPrefix);
  // Their depth and oldest waiting job are read at each scrape of /metrics.
  const untrackQueues = trackQueues(queues);
  const leases = new WaiterLeases(connections.redis, {
    prefix: config.queues.prefix,
    leaseMs: config.media.waiterLeaseMs,
  });
  const waiter = new JobWaiter(config.redis, config.queues.bullmqPrefix, SYNCHRONOUS_QUEUES, leases);
  const media: MediaDeps = {
    jobs: connections.store.mediaJobs,
    storage: createMediaStorage(connections.s3, config.s3.bucket),
    handoff: configuredMediaHandoff(connections.redis, config, logger),
    queues,
    waiter,
    billing,
    waitTimeoutMs: config.media.waitTimeoutMs,
    logger,
    now: accounts.clock,
  };
  await Promise.all([accounts.keyCache.start(), waiter.start(), catalogue.start()]);
  // The api writes the records: its batches go on a thread of their own, off the event loop.
  const requestLogStore = await openRequestLogOrStandIn(config, logger, { writeThread: true });
  const requestLog = new RequestLogWriter(requestLogStore, logger);
  const stopRetention = startRetention(requestLogStore, logger, {
    retentionDays: config.requestLog.retentionDays,
  });
  const stopRecovery = startRecoveryLoop(billing, logger);
  const console = createConsoleServices({
    config,
    redis: connections.redis,
    keys: accounts.keys,
    keyCache: accounts.keyCache,
    store: connections.store,
    clock: accounts.clock,
    hasher: overrides.passwordHasher,
  });
  const selfServe = createSelfServeServices({
    config,
    redis: connections.redis,
    store: connections.store,
    billing,
    clock: accounts.clock,
    logger,
  });
  // Payments left pending (the payer closed the tab after paying) are verified from here.
  const stopPayments =
    selfServe.settlement === undefined ? () => undefined : startPaymentReconciler(selfServe.settlement);
  return {
    accounts,
    billing,
    catalogue,
    catalogueAdmin: createCatalogueAdmin({
      live: catalogue,
      overrides: connections.store.catalogueOverrides,
      clock: accounts.clock,
    }),
    upstream,
    media,
    console,
    selfServe,
    requestLog,
    channels,
    async close() {
      stopRecovery();
      stopRetention();
      stopPayments();
      await withinMs(selfServe.outbox.drain(), 5_000);
      selfServe.mailer.close();
      await channels.close();
      // The records of the requests that ended are written before the store closes.
      await requestLog.close();
      await requestLogStore.close();
      // Deferred settlements still in memory are written before the connections close.
      await billing.close();
      await upstream.close();
      await waiter.close();
      untrackQueues();
      await closeQueues(queues);
      queueConnection.disconnect();
      await withinMs(accounts.keyCache.close(), 2_000);
      subscriber.disconnect();
      await catalogue.close();
      catalogue.closeSubscriber();
    },
  };
}
