import type { StoreConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/**
 * Opens the configured store: MongoDB when `MONGO_URL` is set, else the SQLite file. Fails with the
 * cause (a StoreOpenError naming the file, or the driver's error) when it cannot be used. The
 * MongoDB implementation is loaded only when it is used: its driver's BSON serializer alone holds a
 * 17 MB buffer from the moment it is imported, which a process on SQLite has no use for.
 */
export async function openStore(
  config: StoreConfig,
  deps: { logger: Logger; clock?: () => Date },
): Promise<Store> {
  if (config.kind === 'mongodb') {
    const { openMongoStore } = await import('./mongodb/mongo-store.ts');
    return openMongoStore(config, deps);
  }
  return openSqliteStore(config);
}
