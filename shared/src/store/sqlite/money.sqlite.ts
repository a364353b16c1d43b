import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type {
  ChargeRecord,
  KeySpendState,
  KeySpendSummary,
  LedgerEntry,
  LedgerQuery,
  MoneyStore,
  RecordedCharge,
  RecordedTopUp,
  TopUpRecord,
  WalletState,
} from '../../billing/money-store.ts';
import { ChargeTotals, keySpendKey } from './charge-totals.ts';
import { transaction } from './database.ts';
import {
  LEDGER_COLUMNS,
  ledgerParams,
  toKeySpendState,
  toKeySpendSummary,
  toLedgerDifference,
  toLedgerEntry,
  toUsageRecord,
  toWalletState,
} from './money-rows.sqlite.ts';

/**
 * The money store on SQLite. Each `recordCharges` or `recordTopUp` call is one write transaction:
 * a ledger entry and every total it moves commit together or not at all, so no entry is ever
 * half-counted and `recoverEntries` has nothing to do (the two-phase commit of the MongoDB store is
 * not needed here). The id's primary key makes an entry count once: a second insert of it does
 * nothing, and the call reports the stored one as a repeat.
 */
export function createSqliteMoneyStore(db: DatabaseSync): MoneyStore {
  const sql = prepareAll(db);

  function readWallet(accountId: string): WalletState {
    return toWalletState(sql.wallet.get(accountId));
  }

  function ledgerEntryOf(charge: ChargeRecord): LedgerEntry {
    return {
      id: charge.id,
      accountId: charge.accountId,
      keyId: charge.keyId,
      kind: 'charge',
      amountMicros: -charge.costMicros,
      model: charge.model,
      usage: {
        requests: charge.usage.requests,
        inputTokens: charge.usage.inputTokens,
        outputTokens: charge.usage.outputTokens,
      },
      day: charge.day,
      month: charge.month,
      state: 'applied',
      reference: null,
      createdAt: charge.createdAt,
    };
  }

  /**
   * One transaction: each charge's ledger row (a repeated id inserts nothing and is reported as a
   * repeat), then each wallet, key month spend and usage row the new rows move, once with their
   * sum. Every recorded charge reports its wallet and key spend as the batch left them.
   */
  function recordBatch(charges: readonly ChargeRecord[]): RecordedCharge[] {
    const totals = new ChargeTotals();
    // Each charge's new ledger entry, or the stored one's answer when its id was recorded before.
    const inserts = charges.map((charge): LedgerEntry | RecordedCharge => {
      const entry = ledgerEntryOf(charge);
      if (!inserted(sql.insertEntry.run(...ledgerParams(entry)))) return repeatOf(charge.id);
      totals.add(charge);
      return entry;
    });
    const wallets = new Map<string, WalletState>();
    for (const { accountId, amountMicros } of totals.wallets.values())
      wallets.set(accountId, toWalletState(sql.addToWallet.get(accountId, amountMicros)));
    const spends = new Map<string, KeySpendState>();
    for (const [key, spend] of totals.keySpends) {
      const row = sql.addToKeySpend.get(
        spend.keyId,
        spend.month,
        spend.accountId,
        spend.costMicros,
        spend.lastUsedAt,
      );
      spends.set(key, toKeySpendState(row));
    }
    for (const row of totals.usage.values())
      sql.addToUsage.run(
        row.accountId,
        row.day,
        row.model,
        row.requests,
        row.inputTokens,
        row.outputTokens,
        row.costMicros,
      );
    return inserts.map((insert) => {
      if ('outcome' in insert) return insert;
      const { accountId, keyId, month } = insert;
      return {
        outcome: 'recorded',
        entry: insert,
        wallet: wallets.get(accountId) ?? null,
        keySpend: keyId === null ? null : (spends.get(keySpendKey(keyId, month)) ?? null),
      };
    });
  }

  function repeatOf(id: string): RecordedCharge {
    const row = sql.entry.get(id);
    // The insert just found this id inside the same write transaction, so the row is there.
    if (row === undefined) throw new Error(`ledger entry ${id} conflicted but cannot be read`);
    return { outcome: 'repeat', entry: toLedgerEntry(row), wallet: null, keySpend: null };
  }

  return {
    async recordCharges(charges) {
      if (charges.length === 0) return [];
      return transaction(db, () => recordBatch(charges));
    },

    async recordTopUp(topUp: TopUpRecord): Promise<RecordedTopUp> {
      const entry: LedgerEntry = {
        id: topUp.id,
        accountId: topUp.accountId,
        keyId: null,
        kind: 'topup',
        amountMicros: topUp.amountMicros,
        model: null,
        usage: null,
        day: topUp.day,
        month: topUp.month,
        state: 'applied',
        reference: topUp.reference,
        createdAt: topUp.createdAt,
      };
      return transaction(db, () => {
        if (!inserted(sql.insertEntry.run(...ledgerParams(entry)))) {
          return { created: false, entry: repeatOf(topUp.id).entry, wallet: readWallet(topUp.accountId) };
        }
        const wallet = toWalletState(sql.addToWallet.get(topUp.accountId, topUp.amountMicros));
        return { created: true, entry, wallet };
      });
    },

    async walletState(accountId) {
      return readWallet(accountId);
    },

    async keySpendState(accountId, keyId, month) {
      return toKeySpendState(sql.keySpend.get(keyId, month, accountId));
    },

    async keySpendsOf(accountId, keyIds, month) {
      const found = new Map<string, KeySpendSummary>();
      for (const row of sql.keySpends.all(month, accountId)) {
        const summary = toKeySpendSummary(row);
        found.set(summary.keyId, summary);
      }
      return keyIds.map((keyId) => found.get(keyId) ?? { keyId, spentMicros: 0n, lastUsedAt: null });
    },

    async findEntry(id) {
      const row = sql.entry.get(id);
      return row === undefined ? null : toLedgerEntry(row);
    },

    async listLedger(accountId, query: LedgerQuery) {
      const kind = query.kind ?? null;
      const rows =
        query.before === undefined
          ? sql.ledgerPage.all(accountId, kind, kind, query.limit)
          : sql.ledgerPageBefore.all(
              accountId,
              query.before.createdAt.getTime(),
              query.before.id,
              kind,
              kind,
              query.limit,
            );
      return rows.map(toLedgerEntry);
    },

    async listUsage(accountId, fromDay, toDay) {
      return sql.usage.all(accountId, fromDay, toDay).map(toUsageRecord);
    },

    async recoverEntries() {
      return [];
    },

    async checkLedger() {
      return sql.ledgerCheck.all().map(toLedgerDifference);
    },
  };
}

/** Whether an `INSERT … ON CONFLICT DO NOTHING` wrote its row. */
function inserted(result: { changes: number | bigint }): boolean {
  return Number(result.changes) > 0;
}

// Prepared once per store: preparing is the costly part of a statement, and a charge runs several.
function prepareAll(db: DatabaseSync) {
  const prepare = (text: string): StatementSync => {
    const statement = db.prepare(text);
    statement.setReadBigInts(true);
    return statement;
  };
  return {
    insertEntry: prepare(
      `INSERT INTO ledger (${LEDGER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    entry: prepare(`SELECT ${LEDGER_COLUMNS} FROM ledger WHERE id = ?`),
    addToWallet: prepare(
      `INSERT INTO wallets (account_id, balance, version) VALUES (?, ?, 1)
       ON CONFLICT (account_id) DO UPDATE SET balance = balance + excluded.balance, version = version + 1
       RETURNING balance, version`,
    ),
    // The key's last use moves only forward: a charge settled late (a retried batch) keeps it.
    addToKeySpend: prepare(
      `INSERT INTO key_spend (key_id, month, account_id, spent, version, last_used_at) VALUES (?, ?, ?, ?, 1, ?)
       ON CONFLICT (key_id, month) DO UPDATE SET spent = spent + excluded.spent, version = version + 1,
         last_used_at = MAX(COALESCE(last_used_at, 0), excluded.last_used_at)
       RETURNING spent, version`,
    ),
    addToUsage: prepare(
      `INSERT INTO usage_daily (account_id, date, model, requests, input_tokens, output_tokens, cost)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, date, model) DO UPDATE SET
         requests = requests + excluded.requests,
         input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         cost = cost + excluded.cost`,
    ),
    wallet: prepare('SELECT balance, version FROM wallets WHERE account_id = ?'),
    keySpend: prepare(
      'SELECT spent, version FROM key_spend WHERE key_id = ? AND month = ? AND account_id = ?',
    ),
    // One row per key of the account that was ever charged: this month's spend, its newest charge.
    keySpends: prepare(
      `SELECT key_id, SUM(IIF(month = ?, spent, 0)) AS spent, MAX(last_used_at) AS last_used_at
       FROM key_spend WHERE account_id = ? GROUP BY key_id`,
    ),
    // The row-value comparison lets the (account_id, created_at DESC, id DESC) index start at the cursor.
    ledgerPage: prepare(
      `SELECT ${LEDGER_COLUMNS} FROM ledger WHERE account_id = ? AND (? IS NULL OR kind = ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    ledgerPageBefore: prepare(
      `SELECT ${LEDGER_COLUMNS} FROM ledger WHERE account_id = ? AND (created_at, id) < (?, ?)
         AND (? IS NULL OR kind = ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    usage: prepare(
      `SELECT date, model, requests, input_tokens, output_tokens, cost FROM usage_daily
       WHERE account_id = ? AND date BETWEEN ? AND ? ORDER BY date, model`,
    ),
    // One statement reads one snapshot, so entries committed meanwhile cannot show as a difference.
    // Accounts with entries but no wallet row count as a balance of 0; the sums are taken once.
    ledgerCheck: prepare(
      `WITH sums AS MATERIALIZED (SELECT account_id, SUM(amount) AS ledger FROM ledger GROUP BY account_id)
       SELECT w.account_id, w.balance, COALESCE(s.ledger, 0) AS ledger
         FROM wallets w LEFT JOIN sums s ON s.account_id = w.account_id
         WHERE w.balance <> COALESCE(s.ledger, 0)
       UNION ALL
       SELECT s.account_id, 0 AS balance, s.ledger
         FROM sums s
         WHERE s.ledger <> 0 AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.account_id = s.account_id)
       ORDER BY account_id`,
    ),
  } satisfies Record<string, StatementSync>;
}
