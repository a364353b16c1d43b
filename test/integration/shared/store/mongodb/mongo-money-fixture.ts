import type { Db } from 'mongodb';
import { connectMongo } from '../../../../../shared/src/store/mongodb/connect.ts';
import type { MoneyCollections } from '../../../../../shared/src/store/mongodb/money/guarded-apply.ts';
import { createKeySpendRepository } from '../../../../../shared/src/store/mongodb/money/key-spend.mongo.ts';
import { createLedgerRepository } from '../../../../../shared/src/store/mongodb/money/ledger.mongo.ts';
import {
  createUsageDailyRepository,
  type UsageDailyDoc,
  usageDailyId,
} from '../../../../../shared/src/store/mongodb/money/usage-daily.mongo.ts';
import { createWalletsRepository } from '../../../../../shared/src/store/mongodb/money/wallets.mongo.ts';
import { mongoStoreEnvironment } from '../../../../helpers/test-config.ts';
import {
  type BillingFixture,
  billingFixture,
  type FixtureOptions,
  useCheckedFixture,
} from '../../billing/billing-fixture.ts';

/**
 * Billing over the MongoDB money store, and that store's internals on the same database: its
 * collections (MoneyCollections), through a connection of the test's own, for driving the steps of
 * the two-phase commit one by one as a crashed process would have left them.
 */
export interface MongoMoneyFixture extends BillingFixture {
  /** The fixture's database, through the test's own connection. */
  readonly db: Db;
  /** The MongoDB money store's repositories on that database. */
  readonly collections: MoneyCollections;
  /** A usage row as stored (with its `pending` markers), or null. */
  usageRow(accountId: string, day: string, model: string): Promise<UsageDailyDoc | null>;
}

/** A billing fixture on a fresh MongoDB database (the stack's MongoDB-wire server). */
export async function mongoMoneyFixture(options: FixtureOptions = {}): Promise<MongoMoneyFixture> {
  const fx = await billingFixture({ ...options, env: { ...options.env, ...mongoStoreEnvironment() } });
  const { store } = fx.config;
  if (store.kind !== 'mongodb') {
    await fx.close();
    throw new Error(`the MongoDB money fixture opened a ${store.kind} store`);
  }
  const mongo = await connectMongo(store);
  const { db } = mongo;
  const collections: MoneyCollections = {
    wallets: createWalletsRepository(db),
    ledger: createLedgerRepository(db),
    keySpend: createKeySpendRepository(db),
    usageDaily: createUsageDailyRepository(db),
  };
  const usageRows = db.collection<UsageDailyDoc>('usage_daily', { useBigInt64: true });
  return {
    ...fx,
    db,
    collections,
    usageRow: (accountId, day, model) => usageRows.findOne({ _id: usageDailyId(accountId, day, model) }),
    async close() {
      await fx.close();
      await db.dropDatabase().catch(() => undefined);
      await mongo.client.close();
    },
  };
}

/**
 * The fixture of a test file, as `useBillingFixture`: made before its tests, closed after them, and
 * after every test the deferred settlements are written and the ledger check must pass.
 */
export function useMongoMoneyFixture(options: FixtureOptions = {}): MongoMoneyFixture {
  return useCheckedFixture(() => mongoMoneyFixture(options), 'the MongoDB money fixture');
}
