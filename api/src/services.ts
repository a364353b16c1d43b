import { type Accounts, createAccounts } from '../../shared/src/accounts/accounts.ts';
import { type Billing, createBilling } from '../../shared/src/billing/billing.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { createRedis, type Redis } from '../../shared/src/redis/redis.ts';
import type { Connections } from '../../shared/src/runtime/connections.ts';
import { UpstreamClient } from '../../shared/src/upstream/upstream-client.ts';

/** The api's stateful modules, built once per process over its connections. */
export interface ApiServices {
  readonly accounts: Accounts;
  readonly billing: Billing;
  /** Pooled keep-alive connections to every upstream provider. */
  readonly upstream: UpstreamClient;
  close(): Promise<void>;
}

/** How often a process re-drives charges a crashed process left half-applied. */
const RECOVERY_INTERVAL_MS = 60_000;

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
  await accounts.keyCache.start();
  const recovery = setInterval(() => {
    billing
      .recoverPendingEntries(RECOVERY_INTERVAL_MS)
      .catch((err: unknown) => logger.error({ err }, 'recovering pending ledger entries failed'));
  }, RECOVERY_INTERVAL_MS);
  recovery.unref();
  return {
    accounts,
    billing,
    upstream,
    async close() {
      clearInterval(recovery);
      await upstream.close();
      await accounts.keyCache.close();
      await subscriber.quit().catch(() => undefined);
    },
  };
}
