import type { Store } from '../store.ts';
import { createSqliteAccountsRepository } from './accounts.sqlite.ts';
import { createSqliteApiKeysRepository } from './api-keys.sqlite.ts';
import { createSqliteChannelsRepository } from './channels.sqlite.ts';
import { createSqliteCredentialsRepository } from './credentials.sqlite.ts';
import { openSqlite, type SqliteOptions } from './database.ts';
import { createSqliteMediaJobsRepository } from './media-jobs.sqlite.ts';
import { createSqliteMoneyStore } from './money.sqlite.ts';

/**
 * Opens the SQLite file (migrating it) and serves every aggregate from it. The api and the workers of
 * one host open the same file; SQLite's write lock serialises their transactions.
 */
export function openSqliteStore(options: SqliteOptions): Store {
  const db = openSqlite(options);
  const ping = db.prepare('SELECT 1');
  return {
    kind: 'sqlite',
    location: db.location() ?? options.path,
    accounts: createSqliteAccountsRepository(db),
    keys: createSqliteApiKeysRepository(db),
    credentials: createSqliteCredentialsRepository(db),
    money: createSqliteMoneyStore(db),
    mediaJobs: createSqliteMediaJobsRepository(db),
    channels: createSqliteChannelsRepository(db),
    async ping() {
      ping.get();
    },
    async close() {
      if (db.isOpen) db.close();
    },
  };
}
