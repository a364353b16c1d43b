import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { ApiKeysRepository } from '../../../../shared/src/accounts/api-keys.repository.ts';
import type { CredentialsRepository } from '../../../../shared/src/accounts/credentials.repository.ts';
import type { CatalogueOverridesRepository } from '../../../../shared/src/catalogue/live/catalogue-overrides.repository.ts';
import type { MediaJobsRepository } from '../../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { PaymentsRepository } from '../../../../shared/src/payments/payments.repository.ts';
import { createMongoAccountsRepository } from '../../../../shared/src/store/mongodb/accounts.mongo.ts';
import { createMongoApiKeysRepository } from '../../../../shared/src/store/mongodb/api-keys.mongo.ts';
import { createMongoCatalogueOverridesRepository } from '../../../../shared/src/store/mongodb/catalogue-overrides.mongo.ts';
import { connectMongo, ensureIndexes } from '../../../../shared/src/store/mongodb/connect.ts';
import { createMongoCredentialsRepository } from '../../../../shared/src/store/mongodb/credentials.mongo.ts';
import { createMongoMediaJobsRepository } from '../../../../shared/src/store/mongodb/media-jobs.mongo.ts';
import { createMongoPaymentsRepository } from '../../../../shared/src/store/mongodb/payments.mongo.ts';
import { createMongoVouchersRepository } from '../../../../shared/src/store/mongodb/vouchers.mongo.ts';
import { createSqliteAccountsRepository } from '../../../../shared/src/store/sqlite/accounts.sqlite.ts';
import { createSqliteApiKeysRepository } from '../../../../shared/src/store/sqlite/api-keys.sqlite.ts';
import { createSqliteCatalogueOverridesRepository } from '../../../../shared/src/store/sqlite/catalogue-overrides.sqlite.ts';
import { createSqliteCredentialsRepository } from '../../../../shared/src/store/sqlite/credentials.sqlite.ts';
import { openSqlite } from '../../../../shared/src/store/sqlite/database.ts';
import { createSqliteMediaJobsRepository } from '../../../../shared/src/store/sqlite/media-jobs.sqlite.ts';
import { createSqlitePaymentsRepository } from '../../../../shared/src/store/sqlite/payments.sqlite.ts';
import { createSqliteVouchersRepository } from '../../../../shared/src/store/sqlite/vouchers.sqlite.ts';
import type { StoreKind } from '../../../../shared/src/store/store.ts';
import type { VouchersRepository } from '../../../../shared/src/vouchers/vouchers.repository.ts';
import '../../../setup/stack-endpoints.ts';

/** Every store implementation; each contract test file runs once per kind. */
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'mongodb'];

/**
 * jongodb, the MongoDB-wire server of the local test stack, does not apply a conditional
 * findOneAndUpdate atomically: of two concurrent ones on one document both may match and both
 * answer the document (MongoDB itself guarantees one). Race tests of conditional updates skip it.
 */
export const JONGODB_RACES =
  'jongodb lets two concurrent conditional findOneAndUpdate win; run with TEST_STACK=containers';

/** The repositories of one connection to a store. */
export interface StoreRepositories {
  readonly kind: StoreKind;
  readonly accounts: AccountsRepository;
  readonly keys: ApiKeysRepository;
  readonly credentials: CredentialsRepository;
  readonly mediaJobs: MediaJobsRepository;
  readonly payments: PaymentsRepository;
  readonly vouchers: VouchersRepository;
  readonly catalogueOverrides: CatalogueOverridesRepository;
}

/** A fresh, empty store for one test file. */
export interface StoreUnderTest extends StoreRepositories {
  /** Where the data is: the SQLite file, or the MongoDB database name. */
  readonly location: string;
  /** What serves it: jongodb is told apart from MongoDB for its known gaps (JONGODB_RACES). */
  readonly server: 'sqlite' | 'mongodb' | 'jongodb';
  /**
   * Another connection to the same data, as another process of the host (SQLite) or another
   * replica (MongoDB) has; closed with the store.
   */
  connectAgain(): Promise<StoreRepositories>;
  /**
   * From now on the store itself refuses to write this password hash (an SQLite trigger; on
   * MongoDB a unique index another document already holds the hash under), so a test can make a
   * password write fail inside the store, as a full disk or a lost primary would.
   */
  refusePasswordHash(passwordHash: string): Promise<void>;
  /** Closes every connection and removes the data. */
  close(): Promise<void>;
}

/** Opens a fresh store of this kind: a new SQLite file in a temporary folder, or a new database. */
export async function openStoreUnderTest(kind: StoreKind): Promise<StoreUnderTest> {
  return kind === 'sqlite' ? openSqliteStore() : openMongoStore();
}

/**
 * Runs `tests` once per store kind, each time in its own `describe` with a fresh store opened before
 * the tests and closed after them. `store()` answers the open store (only inside tests and hooks).
 */
export function describeEachStore(
  name: string,
  tests: (store: () => StoreUnderTest, kind: StoreKind) => void,
): void {
  describe.each(STORE_KINDS)(`${name} (%s)`, (kind) => {
    let opened: StoreUnderTest | undefined;
    beforeAll(async () => {
      opened = await openStoreUnderTest(kind);
    });
    afterAll(async () => {
      await opened?.close();
    });
    tests(() => {
      if (opened === undefined) throw new Error(`the ${kind} store is not open (used outside a test?)`);
      return opened;
    }, kind);
  });
}

async function openSqliteStore(): Promise<StoreUnderTest> {
  const folder = await mkdtemp(join(tmpdir(), 'gateway-store-'));
  const path = join(folder, 'gateway.db');
  const connect = () => {
    const db = openSqlite({ path, busyTimeoutMs: 5000 });
    const repositories: StoreRepositories = {
      kind: 'sqlite',
      accounts: createSqliteAccountsRepository(db),
      keys: createSqliteApiKeysRepository(db),
      credentials: createSqliteCredentialsRepository(db),
      mediaJobs: createSqliteMediaJobsRepository(db),
      payments: createSqlitePaymentsRepository(db),
      vouchers: createSqliteVouchersRepository(db),
      catalogueOverrides: createSqliteCatalogueOverridesRepository(db),
    };
    return { db, repositories };
  };
  const first = connect();
  const others: Array<{ close(): void }> = [];
  return {
    ...first.repositories,
    location: path,
    server: 'sqlite',
    async connectAgain() {
      const other = connect();
      others.push(other.db);
      return other.repositories;
    },
    async refusePasswordHash(passwordHash) {
      const name = `refuse_${randomBytes(4).toString('hex')}`;
      const when = `WHEN NEW.password_hash = '${passwordHash.replaceAll("'", "''")}'`;
      for (const event of ['INSERT', 'UPDATE']) {
        first.db.exec(
          `CREATE TRIGGER ${name}_${event.toLowerCase()} BEFORE ${event} ON account_credentials ${when}
           BEGIN SELECT RAISE(ABORT, 'password write refused by the test'); END`,
        );
      }
    },
    async close() {
      for (const db of [...others, first.db]) db.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Connection options for a fresh database on the stack's MongoDB-wire server. */
export function freshMongoOptions() {
  return {
    url: inject('stack').mongoUrl,
    database: `test_${randomBytes(5).toString('hex')}`,
    serverSelectionTimeoutMs: 5000,
  };
}

/** Which server answers: jongodb is told apart from MongoDB for its known gaps. */
export async function mongoServerOf(db: Db): Promise<'mongodb' | 'jongodb'> {
  const build = await db.admin().command({ buildInfo: 1 });
  return String(build.version).includes('jongodb') ? 'jongodb' : 'mongodb';
}

async function openMongoStore(): Promise<StoreUnderTest> {
  const options = freshMongoOptions();
  const connect = async () => {
    const mongo = await connectMongo(options);
    const repositories: StoreRepositories = {
      kind: 'mongodb',
      accounts: createMongoAccountsRepository(mongo.db),
      keys: createMongoApiKeysRepository(mongo.db),
      credentials: createMongoCredentialsRepository(mongo.db),
      mediaJobs: createMongoMediaJobsRepository(mongo.db),
      payments: createMongoPaymentsRepository(mongo.db),
      vouchers: createMongoVouchersRepository(mongo.db),
      catalogueOverrides: createMongoCatalogueOverridesRepository(mongo.db),
    };
    return { mongo, repositories };
  };
  const first = await connect();
  // The repositories declare their indexes when their modules load, so all are known by now.
  await ensureIndexes(first.mongo.db);
  const server = await mongoServerOf(first.mongo.db);
  const others: Array<{ close(): Promise<void> }> = [];
  return {
    ...first.repositories,
    location: options.database,
    server,
    async connectAgain() {
      const other = await connect();
      others.push(other.mongo.client);
      return other.repositories;
    },
    async refusePasswordHash(passwordHash) {
      const credentials = first.mongo.db.collection<{ _id: string; password_hash: string }>('credentials');
      // Unique among the documents holding this one hash only: other tests' writes are not touched.
      await credentials.createIndex(
        { password_hash: 1 },
        {
          unique: true,
          name: `refused_${randomBytes(4).toString('hex')}`,
          partialFilterExpression: { password_hash: passwordHash },
        },
      );
      await credentials.insertOne({ _id: `refused:${passwordHash}`, password_hash: passwordHash });
    },
    async close() {
      await first.mongo.db.dropDatabase().catch(() => undefined);
      await Promise.allSettled([...others, first.mongo.client].map((client) => client.close()));
    },
  };
}
