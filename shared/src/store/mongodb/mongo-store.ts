import { mongoHostsOf } from '../../config/mongo-connection-string.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Store } from '../store.ts';
import { createMongoAccountsRepository } from './accounts.mongo.ts';
import { createMongoApiKeysRepository } from './api-keys.mongo.ts';
import { createMongoChannelsRepository } from './channels.mongo.ts';
import { connectMongo, ensureIndexes, type MongoOptions } from './connect.ts';
import { createMongoCredentialsRepository } from './credentials.mongo.ts';
import { upgradeInvitationDocuments } from './credentials-upgrade.mongo.ts';
import { createMongoMediaJobsRepository } from './media-jobs.mongo.ts';
import { upgradeMediaJobDocuments } from './media-jobs-upgrade.mongo.ts';
import { createMongoMoneyStore } from './money/money.mongo.ts';

/**
 * Connects to MongoDB, brings documents of an earlier form up to date, creates the declared
 * indexes, and serves every aggregate from one database.
 */
export async function openMongoStore(
  options: MongoOptions,
  deps: { logger: Logger; clock?: () => Date },
): Promise<Store> {
  const mongo = await connectMongo(options);
  try {
    await upgradeMediaJobDocuments(mongo.db);
    await upgradeInvitationDocuments(mongo.db);
    await ensureIndexes(mongo.db);
  } catch (err) {
    await mongo.client.close();
    throw err;
  }
  const { db } = mongo;
  return {
    kind: 'mongodb',
    location: `${mongoHostsOf(options.url)}/${options.database}`,
    accounts: createMongoAccountsRepository(db),
    keys: createMongoApiKeysRepository(db),
    credentials: createMongoCredentialsRepository(db),
    money: createMongoMoneyStore(db, deps),
    mediaJobs: createMongoMediaJobsRepository(db),
    channels: createMongoChannelsRepository(db),
    async ping() {
      await db.command({ ping: 1 });
    },
    close: () => mongo.client.close(),
  };
}
