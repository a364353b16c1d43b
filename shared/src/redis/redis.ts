import { Cluster, type RedisOptions as IoRedisOptions, Redis } from 'ioredis';
import type { RedisSettings } from './redis-settings.ts';

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

/** How long a Cluster client waits before it tries a command again after a failover or CLUSTERDOWN. */
const CLUSTER_RETRY_DELAY_MS = 200;

const retryStrategy = (attempt: number): number => Math.min(attempt * 200, 2_000);

/**
 * A Sentinel-managed primary that became a replica answers writes with READONLY until the client
 * follows the failover: reconnect (to the primary the sentinels name now) and send the command again.
 */
const reconnectOnReadonly = (error: Error): 2 | false => (error.message.startsWith('READONLY') ? 2 : false);

/**
 * Opens an ioredis connection that never crashes the process on a lost server: it reconnects. One
 * node (`REDIS_URL`), a Cluster (an ioredis `Cluster`, typed as `Redis`: the commands the gateway
 * uses are the same; code that must know tests `isCluster`) or a Sentinel-managed primary (the
 * sentinels are asked for the primary at each connection; a demoted primary's READONLY reconnects).
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
export function createRedis(target: string | RedisSettings, options: RedisOptions = {}): Redis {
  const settings: RedisSettings = typeof target === 'string' ? { mode: 'single', url: target } : target;
  const forBullmq = options.forBullmq === true;
  const common = {
    connectionName: options.connectionName,
    maxRetriesPerRequest: forBullmq ? null : 1,
    enableReadyCheck: true,
    ...(forBullmq ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
  } satisfies IoRedisOptions;
  let redis: Redis;
  if (settings.mode === 'single') {
    redis = new Redis(settings.url, { ...common, lazyConnect: false, retryStrategy });
  } else if (settings.mode === 'sentinel') {
    redis = new Redis({
      ...common,
      sentinels: settings.sentinels.map(({ host, port }) => ({ host, port })),
      name: settings.masterName,
      role: 'master',
      username: settings.username,
      password: settings.password,
      sentinelPassword: settings.sentinelPassword,
      ...(settings.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      // No `failoverDetector`: in ioredis 6 its disconnect on +switch-master, landing while a
      // reconnection is asking the sentinels, ends the client for good ("Connection is closed.",
      // seen in the failover test). Each reconnection asks the sentinels for the primary anyway, and
      // a connection left on a demoted primary is moved by `reconnectOnError` at its first READONLY.
      failoverDetector: false,
      reconnectOnError: reconnectOnReadonly,
      retryStrategy,
      sentinelRetryStrategy: retryStrategy,
    });
  } else {
    const cluster = new Cluster(
      settings.nodes.map(({ host, port }) => ({ host, port })),
      {
        redisOptions: {
          ...common,
          username: settings.username,
          password: settings.password,
          ...(settings.tls ? { tls: {} } : {}),
        },
        // Managed Clusters with TLS announce names their certificates are for: keep them.
        ...(settings.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
        enableReadyCheck: true,
        clusterRetryStrategy: retryStrategy,
        retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
        retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
        retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
        slotsRefreshTimeout: 2_000,
        maxRedirections: 16,
      },
    );
    redis = cluster as unknown as Redis;
  }
  // Errors surface through the commands that fail; an unhandled 'error' event would crash.
  redis.on('error', () => undefined);
  // `duplicate()` (BullMQ's blocking connections) copies the options, not the listeners.
  const duplicate = redis.duplicate.bind(redis) as (...args: unknown[]) => Redis;
  Object.assign(redis, {
    duplicate: (...args: unknown[]): Redis => {
      const copy = duplicate(...args);
      copy.on('error', () => undefined);
      return copy;
    },
  });
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

/** Whether a connection made by `createRedis` speaks to a Cluster. */
export function isCluster(redis: Redis | Cluster): boolean {
  return (redis as { isCluster?: boolean }).isCluster === true;
}
