import type { StoreConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { openMongoStore } from './mongodb/mongo-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * Opens the configured store: MongoDB when `MONGO_URL` is set, else the SQLite file. Fails with the
 * cause (a StoreOpenError naming the file, or the driver's error) when it cannot be used.
 */
export async function openStore(
  config: StoreConfig,
  deps: { logger: Logger; clock?: () => Date },
): Promise<Store> {
  if (config.kind === 'mongodb') return openMongoStore(config, deps);
  return openSqliteStore(config);
}
