import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { type ReadinessCheck, redisCheck, s3Check, storeCheck } from '../health/readiness.ts';
import type { Logger } from '../logging/logger.ts';
import { createRedis } from '../redis/redis.ts';
import { describeRedis } from '../redis/redis-settings.ts';
import { checkRedisTopology } from '../redis/topology-check.ts';
import { connectS3, type S3Connection } from '../storage/s3-connection.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';

/** The stateful clients a process holds: Redis (commands), the durable store and S3. */
export interface Connections {
  readonly redis: Redis;
  readonly store: Store;
  readonly s3: S3Connection;
  readonly readinessChecks: readonly ReadinessCheck[];
}

export interface ConnectionOptions {
  /**
   * `at-start`: the S3 client is made and the bucket created (when missing) before this resolves,
   * as a worker, which stores media, needs. `on-first-use`: at the first media read or write, as
   * the api needs (it loads the SDK only if it serves media).
   */
  readonly s3: 'at-start' | 'on-first-use';
}

/**
 * Connects to every store (migrating the SQLite file or creating MongoDB's indexes) and, with
 * `s3: 'at-start'`, creates the media bucket when missing. Fails (closing what it opened) when a
 * store cannot be used, so a process never starts half-wired. Logs which durable store it uses.
 */
export async function openConnections(
  config: Config,
  processName: string,
  logger: Logger,
  options: ConnectionOptions = { s3: 'at-start' },
): Promise<Connections> {
  // A Cluster that is not ready, a master name no sentinel knows: one message naming the setting.
  await checkRedisTopology(config.redis);
  const redis = createRedis(config.redis, { connectionName: processName });
  const s3 = connectS3(config.s3, config.s3.bucket);
  let store: Store | undefined;
  try {
    await redis.ping();
    store = await openStore(config.store, { logger });
    if (options.s3 === 'at-start') await s3.use();
  } catch (err) {
    redis.disconnect();
    s3.destroy();
    await store?.close();
    throw err;
  }
  logger.info({ store: store.kind, location: store.location }, `durable store: ${store.kind}`);
  logger.info({ redis: config.redis.mode }, `redis: ${describeRedis(config.redis)}`);
  const readinessChecks = [
    redisCheck(redis, config.redis.mode),
    storeCheck(store),
    s3Check(config.s3, config.s3.bucket),
  ];
  return { redis, store, s3, readinessChecks };
}

export async function closeConnections(connections: Connections): Promise<void> {
  await Promise.allSettled([connections.redis.quit(), connections.store.close()]);
  connections.s3.destroy();
}
