import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export interface RedisOptions {
  /** BullMQ needs `null` here for its blocking connections; other users want a bound. */
  readonly forBullmq?: boolean;
  readonly connectionName?: string;
}

/**
 * How long a command may wait for its reply on an open connection (a server that hangs, a network
 * partition that leaves the socket open) before it fails, on the connections that are not BullMQ's.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Opens an ioredis connection that never crashes the process on a lost server: it reconnects.
 *
 * Outside BullMQ, commands fail fast while Redis is down instead of queueing until it returns:
 * the offline queue serves only the start (commands sent before the first connection is ready
 * wait for it); once connected, a command issued while the connection is lost fails at once
 * ("Stream isn't writeable"), a command in flight when it drops fails at the first failed
 * reconnection (`maxRetriesPerRequest: 1`, `MaxRetriesPerRequestError`), and a reply that does not
 * come fails after `REDIS_COMMAND_TIMEOUT_MS`. The api answers those 503 with `Retry-After`.
 * Subscriptions are renewed by ioredis on reconnection. BullMQ's connections keep
 * `maxRetriesPerRequest: null` and their offline queue: workers and queue listeners wait for
 * Redis to come back, as BullMQ requires.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const forBullmq = options.forBullmq === true;
  const redis = new Redis(url, {
    connectionName: options.connectionName,
    maxRetriesPerRequest: forBullmq ? null : 1,
    enableReadyCheck: true,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    ...(forBullmq ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
  });
  // Errors surface through the commands that fail; an unhandled 'error' event would crash.
  redis.on('error', () => undefined);
  if (!forBullmq) {
    redis.once('ready', () => {
      redis.options.enableOfflineQueue = false;
    });
    // Without the offline queue, QUIT on a lost connection would be refused and the client would
    // go on reconnecting after its owner closed it: closing a connection that is not up ends it.
    const quit = redis.quit.bind(redis) as () => Promise<'OK'>;
    Object.assign(redis, {
      quit: (): Promise<'OK'> => {
        if (redis.status === 'ready') return quit();
        redis.disconnect();
        return Promise.resolve('OK');
      },
    });
  }
  return redis;
}
