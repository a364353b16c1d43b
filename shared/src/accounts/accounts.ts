import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { Redis } from '../redis/redis.ts';
import type { Store } from '../store/store.ts';
import type { AccountsRepository } from './accounts.repository.ts';
import type { ApiKeysRepository } from './api-keys.repository.ts';
import { createKeyCache, type KeyCache } from './key-cache.ts';

/** Accounts and keys, wired: the repositories and the key cache every api replica shares a channel of. */
export interface Accounts {
  readonly accounts: AccountsRepository;
  readonly keys: ApiKeysRepository;
  readonly keyCache: KeyCache;
  /** The clock the use cases read; tests replace it through their own wiring. */
  readonly clock: () => Date;
}

export interface AccountsDeps {
  readonly store: Pick<Store, 'accounts' | 'keys'>;
  /** Ordinary command connection (publishes invalidations). */
  readonly redis: Redis;
  /** A connection of its own for the key cache's subscription (`createRedis`, not shared). */
  readonly subscriberRedis: Redis;
  readonly config: Pick<Config, 'keyCacheTtlMs' | 'queues'>;
  readonly logger: Logger;
}

/** The invalidation channel of a deployment: under the Redis prefix so test runs never cross. */
export function keyCacheChannel(prefix: string): string {
  return `${prefix}:key-cache:invalidate`;
}

/** Builds the accounts module; call `keyCache.start()` before serving and `keyCache.close()` at shutdown. */
export function createAccounts(deps: AccountsDeps): Accounts {
  const { accounts, keys } = deps.store;
  const keyCache = createKeyCache({
    keys,
    accounts,
    redis: deps.redis,
    subscriber: deps.subscriberRedis,
    ttlMs: deps.config.keyCacheTtlMs,
    channel: keyCacheChannel(deps.config.queues.prefix),
    logger: deps.logger.child({ component: 'key-cache' }),
  });
  return { accounts, keys, keyCache, clock: () => new Date() };
}
