import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { RequestLogStore } from './request-log-store.ts';
import { unavailableRequestLog } from './unavailable-request-log.ts';

/**
 * Opens the request log's store: beside MongoDB when the service's store is MongoDB (its own
 * collection, over its own connection), else its own SQLite file (`REQUEST_LOG_PATH`). The
 * MongoDB implementation is loaded only when it is used.
 */
export async function openRequestLog(
  config: Pick<Config, 'store' | 'requestLog'>,
  logger?: Logger,
  options: OpenRequestLogOptions = {},
): Promise<RequestLogStore> {
  const { store, requestLog } = config;
  if (store.kind === 'mongodb') {
    const [{ connectMongo }, { openMongoRequestLog }] = await Promise.all([
      import('../store/mongodb/connect.ts'),
      import('../store/mongodb/request-log.mongo.ts'),
    ]);
    const mongo = await connectMongo(store);
    try {
      return await openMongoRequestLog(mongo.db, {
        retentionDays: requestLog.retentionDays,
        close: () => mongo.client.close(),
      });
    } catch (err) {
      await mongo.client.close();
      throw err;
    }
  }
  const { openSqliteRequestLog } = await import('../store/sqlite/request-log.sqlite.ts');
  return openSqliteRequestLog({
    path: requestLog.path,
    busyTimeoutMs: store.busyTimeoutMs,
    writeThread: options.writeThread ?? false,
    ...(logger === undefined ? {} : { logger }),
  });
}

export interface OpenRequestLogOptions {
  /** SQLite: write the batches on a thread of their own (the api, which writes them). */
  readonly writeThread?: boolean;
}

/**
 * The request log for a serving process: a store that cannot be opened is logged and stood in
 * for (its records are dropped and counted): the log never keeps the service from serving.
 */
export async function openRequestLogOrStandIn(
  config: Pick<Config, 'store' | 'requestLog'>,
  logger: Logger,
  options: OpenRequestLogOptions = {},
): Promise<RequestLogStore> {
  try {
    return await openRequestLog(config, logger, options);
  } catch (err) {
    logger.error({ err }, 'request log unavailable: its records are dropped until a restart');
    return unavailableRequestLog(config.store.kind, err);
  }
}
