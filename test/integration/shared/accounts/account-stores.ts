import type { Config } from '../../../../shared/src/config/config.ts';
import { createRedis, type Redis } from '../../../../shared/src/redis/redis.ts';
import { openStore } from '../../../../shared/src/store/open-store.ts';
import type { Store } from '../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { testConfig } from '../../../helpers/test-config.ts';

/** A test file's own store (the default one: a fresh SQLite file) and Redis connections, plus the repositories. */
export interface AccountStores {
  readonly config: Config;
  readonly store: Store;
  readonly redis: Redis;
  readonly accounts: Store['accounts'];
  readonly keys: Store['keys'];
  /** Another Redis connection, for a subscriber; closed with the stores. */
  newRedis(): Redis;
  close(): Promise<void>;
}

/** Opens the stores on the test stack, with a fresh store and Redis prefix. */
export async function openAccountStores(env: Record<string, string> = {}): Promise<AccountStores> {
  const config = testConfig(env);
  const store = await openStore(config.store, { logger: captureLogger('warn').logger });
  const opened: Redis[] = [];
  const newRedis = () => {
    const redis = createRedis(config.redis);
    opened.push(redis);
    return redis;
  };
  const redis = newRedis();
  return {
    config,
    store,
    redis,
    accounts: store.accounts,
    keys: store.keys,
    newRedis,
    async close() {
      await Promise.allSettled([...opened.map((r) => r.quit()), store.close()]);
    },
  };
}
