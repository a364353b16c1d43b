import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export interface RedisOptions {
  /** BullMQ needs `null` here for its blocking connections; other users want a bound. */
  readonly forBullmq?: boolean;
  readonly connectionName?: string;
}

/** Opens an ioredis connection that never crashes the process on a lost server: it reconnects. */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    connectionName: options.connectionName,
    maxRetriesPerRequest: options.forBullmq ? null : 2,
    enableReadyCheck: true,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Errors surface through the commands that fail; an unhandled 'error' event would crash.
  redis.on('error', () => undefined);
  return redis;
}
