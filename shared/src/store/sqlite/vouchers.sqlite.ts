import type { DatabaseSync } from 'node:sqlite';
import type { VoucherRecord, VouchersRepository } from '../../vouchers/vouchers.repository.ts';
import { transaction } from './database.ts';

interface VoucherRow {
  id: string;
  batch_id: string;
  code_hash: string;
  amount_toman: number;
  note: string | null;
  expires_at: number | null;
  created_at: number;
  redeemed_at: number | null;
  redeemed_by: string | null;
}

const dateOf = (ms: number | null) => (ms === null ? null : new Date(Number(ms)));

function toRecord(row: VoucherRow): VoucherRecord {
  return {
    id: row.id,
    batchId: row.batch_id,
    codeHash: row.code_hash,
    amountToman: Number(row.amount_toman),
    note: row.note,
    expiresAt: dateOf(row.expires_at),
    createdAt: new Date(Number(row.created_at)),
    redeemedAt: dateOf(row.redeemed_at),
    redeemedBy: row.redeemed_by,
  };
}

/** The vouchers repository on SQLite: table `vouchers` (migrations.ts, version 4). */
export function createSqliteVouchersRepository(db: DatabaseSync): VouchersRepository {
  const insert = db.prepare(
    `INSERT INTO vouchers (id, batch_id, code_hash, amount_toman, note, expires_at, created_at)
     VALUES (:id, :batch_id, :code_hash, :amount, :note, :expires_at, :now)`,
  );
  // One statement: of concurrent redemptions of one code, one updates it.
  const redeem = db.prepare(
    `UPDATE vouchers SET redeemed_at = :now, redeemed_by = :account_id
     WHERE code_hash = :code_hash AND redeemed_at IS NULL AND (expires_at IS NULL OR expires_at > :now)
     RETURNING *`,
  );
  const byHash = db.prepare('SELECT * FROM vouchers WHERE code_hash = ?');
  const listAll = db.prepare('SELECT * FROM vouchers ORDER BY created_at DESC, id DESC LIMIT ?');
  const listUsed = db.prepare(
    'SELECT * FROM vouchers WHERE redeemed_at IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const listUnused = db.prepare(
    'SELECT * FROM vouchers WHERE redeemed_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?',
  );

  return {
    async createMany(vouchers, now) {
      transaction(db, () => {
        for (const v of vouchers) {
          insert.run({
            id: v.id,
            batch_id: v.batchId,
            code_hash: v.codeHash,
            amount: v.amountToman,
            note: v.note,
            expires_at: v.expiresAt?.getTime() ?? null,
            now: now.getTime(),
          });
        }
      });
    },
    async redeem(codeHash, accountId, now) {
      const row = redeem.get({ code_hash: codeHash, account_id: accountId, now: now.getTime() }) as
        | VoucherRow
        | undefined;
      if (row !== undefined) return { outcome: 'redeemed', voucher: toRecord(row) };
      const found = byHash.get(codeHash) as VoucherRow | undefined;
      if (found === undefined || found.redeemed_at === null) return { outcome: 'not_found' };
      return { outcome: 'used', voucher: toRecord(found) };
    },
    async list(query) {
      const statement = query.used === undefined ? listAll : query.used ? listUsed : listUnused;
      return (statement.all(query.limit) as unknown as VoucherRow[]).map(toRecord);
    },
  };
}
