import type { Db } from 'mongodb';
import type { MoneyStore, RecordedTopUp, TopUpRecord } from '../../../billing/money-store.ts';
import type { Logger } from '../../../logging/logger.ts';
import { checkLedgerMongo } from './check-ledger.mongo.ts';
import { commitEntry, LEASE_MS, type MoneyCollections } from './guarded-apply.ts';
import { createKeySpendRepository } from './key-spend.mongo.ts';
import { createLedgerRepository, type LedgerDoc, toLedgerEntry } from './ledger.mongo.ts';
import { recordChargesMongo } from './record-charges.mongo.ts';
import { recoverEntriesMongo, resumeIfAbandoned } from './recover-entries.mongo.ts';
import { createUsageDailyRepository } from './usage-daily.mongo.ts';
import { createWalletsRepository } from './wallets.mongo.ts';

export interface MongoMoneyOptions {
  readonly logger: Logger;
  readonly clock?: () => Date;
}

/**
 * The money store on MongoDB: a re-drivable two-phase commit per entry (guarded-apply.ts), written
 * a batch at a time (record-charges.mongo.ts), completed by `recoverEntries` after a crash.
 */
export function createMongoMoneyStore(db: Db, options: MongoMoneyOptions): MoneyStore {
  const collections: MoneyCollections = {
    wallets: createWalletsRepository(db),
    ledger: createLedgerRepository(db),
    keySpend: createKeySpendRepository(db),
    usageDaily: createUsageDailyRepository(db),
  };
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger.child({ module: 'money-store' });
  return {
    recordCharges: (charges) => recordChargesMongo(collections, charges, clock(), logger),
    recordTopUp: (topUp) => recordTopUp(collections, topUp, clock(), logger),
    walletState: (accountId) => collections.wallets.findState(accountId),
    keySpendState: (accountId, keyId, month) => collections.keySpend.findState(accountId, keyId, month),
    keySpendsOf: (accountId, keyIds, month) => collections.keySpend.summaries(accountId, keyIds, month),
    findEntry: async (id) => {
      const doc = await collections.ledger.findById(id);
      return doc === null ? null : toLedgerEntry(doc);
    },
    listLedger: async (accountId, query) =>
      (await collections.ledger.listByAccount(accountId, query)).map(toLedgerEntry),
    listUsage: async (accountId, fromDay, toDay) =>
      (await collections.usageDaily.listRange(accountId, fromDay, toDay)).map((row) => ({
        date: row.date,
        model: row.model,
        requests: Number(row.requests),
        inputTokens: Number(row.input_tokens),
        outputTokens: Number(row.output_tokens),
        costMicros: BigInt(row.cost),
      })),
    recoverEntries: (olderThan) => recoverEntriesMongo(collections, olderThan, clock(), logger),
    checkLedger: () => checkLedgerMongo(collections),
  };
}

/** A top-up: the same two-phase commit on the wallet alone, in line. */
async function recordTopUp(
  collections: MoneyCollections,
  topUp: TopUpRecord,
  now: Date,
  logger: Logger,
): Promise<RecordedTopUp> {
  const doc: LedgerDoc = {
    _id: topUp.id,
    account_id: topUp.accountId,
    key_id: null,
    kind: 'topup',
    amount: topUp.amountMicros,
    model: null,
    usage: null,
    day: topUp.day,
    month: topUp.month,
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + LEASE_MS),
    created_at: topUp.createdAt,
    reference: topUp.reference,
  };
  if (await collections.ledger.insertPending(doc)) {
    const { wallet } = await commitEntry(collections, doc);
    const state = wallet ?? (await collections.wallets.findState(topUp.accountId));
    const entry = toLedgerEntry({ ...doc, state: 'applied', open: false });
    return { created: true, entry, wallet: { balance: state.balance, version: state.version } };
  }
  const existing = await collections.ledger.findById(doc._id);
  if (existing === null) throw new Error(`ledger entry ${doc._id} vanished`);
  await resumeIfAbandoned(collections, existing, now, logger);
  const current = (await collections.ledger.findById(doc._id)) ?? existing;
  return {
    created: false,
    entry: toLedgerEntry(current),
    wallet: await collections.wallets.findState(topUp.accountId),
  };
}
