import type { Db } from 'mongodb';
import { createAccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import { createApiKeysRepository } from '../../../../shared/src/accounts/api-keys.repository.ts';
import type { Config } from '../../../../shared/src/config/config.ts';
import { connectMongo, ensureIndexes, type Mongo } from '../../../../shared/src/mongo/mongo.ts';
import { createRedis, type Redis } from '../../../../shared/src/redis/redis.ts';
import { testConfig } from '../../../helpers/test-config.ts';

/** A test file's own database (with the declared indexes) and Redis connections, plus the repositories. */
export interface AccountStores {
  readonly config: Config;
  readonly db: Db;
  readonly redis: Redis;
  readonly accounts: ReturnType<typeof createAccountsRepository>;
  readonly keys: ReturnType<typeof createApiKeysRepository>;
  /** Another Redis connection, for a subscriber; closed with the stores. */
  newRedis(): Redis;
  close(): Promise<void>;
}

/** Opens the stores on the test stack, with a fresh database and Redis prefix. */
export async function openAccountStores(env: Record<string, string> = {}): Promise<AccountStores> {
  const config = testConfig(env);
  const mongo: Mongo = await connectMongo(config.mongo);
  await ensureIndexes(mongo.db);
  const opened: Redis[] = [];
  const newRedis = () => {
    const redis = createRedis(config.redis.url);
    opened.push(redis);
    return redis;
  };
  const redis = newRedis();
  return {
    config,
    db: mongo.db,
    redis,
    accounts: createAccountsRepository(mongo.db),
    keys: createApiKeysRepository(mongo.db),
    newRedis,
    async close() {
      await mongo.db.dropDatabase().catch(() => undefined);
      await Promise.allSettled([...opened.map((r) => r.quit()), mongo.client.close()]);
    },
  };
}
