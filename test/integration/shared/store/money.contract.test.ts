import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type Db, Long } from 'mongodb';
import { describe, inject } from 'vitest';
import { connectMongo, ensureIndexes } from '../../../../shared/src/store/mongodb/connect.ts';
import { createMongoMoneyStore } from '../../../../shared/src/store/mongodb/money/money.mongo.ts';
import { openSqlite } from '../../../../shared/src/store/sqlite/database.ts';
import { createSqliteMoneyStore } from '../../../../shared/src/store/sqlite/money.sqlite.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { moneyContract, type OpenedMoneyStore } from './money-contract.ts';
import '../../../setup/stack-endpoints.ts';

interface OpenedSqlite extends OpenedMoneyStore {
  readonly path: string;
}

describe('money store contract (sqlite)', () => {
  moneyContract<OpenedSqlite>(
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'money-contract-'));
      const path = join(folder, 'gateway.db');
      const db = openSqlite({ path, busyTimeoutMs: 5_000 });
      return {
        path,
        money: createSqliteMoneyStore(db),
        async close() {
          db.close();
          await rm(folder, { recursive: true, force: true });
        },
      };
    },
    {
      // Another connection, as another process of the host would write.
      async tamper(store, accountId) {
        const other = new DatabaseSync(store.path, { timeout: 5_000 });
        try {
          other.prepare('UPDATE wallets SET balance = balance + 1 WHERE account_id = ?').run(accountId);
        } finally {
          other.close();
        }
      },
    },
  );
});

interface OpenedMongo extends OpenedMoneyStore {
  readonly db: Db;
}

describe('money store contract (mongodb)', () => {
  moneyContract<OpenedMongo>(
    async () => {
      const mongo = await connectMongo({
        url: inject('stack').mongoUrl,
        database: `test_${randomBytes(5).toString('hex')}`,
        serverSelectionTimeoutMs: 5_000,
      });
      await ensureIndexes(mongo.db);
      const { logger } = captureLogger('silent');
      return {
        db: mongo.db,
        money: createMongoMoneyStore(mongo.db, { logger, clock: () => new Date() }),
        async close() {
          await mongo.db.dropDatabase().catch(() => undefined);
          await mongo.client.close();
        },
      };
    },
    {
      async tamper(store, accountId) {
        await store.db
          .collection<{ _id: string }>('wallets')
          .updateOne({ _id: accountId }, { $inc: { balance: Long.fromNumber(1) } });
      },
    },
  );
});
