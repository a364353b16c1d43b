import type { DatabaseSync } from 'node:sqlite';
import type { PaymentRecord, PaymentStatus, PaymentsRepository } from '../../payments/payments.repository.ts';

interface PaymentRow {
  id: string;
  account_id: string;
  amount_toman: number;
  status: PaymentStatus;
  authority: string | null;
  ref_id: number | null;
  card_pan: string | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
}

function toRecord(row: PaymentRow | undefined): PaymentRecord | null {
  if (row === undefined) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    amountToman: Number(row.amount_toman),
    status: row.status,
    authority: row.authority,
    refId: row.ref_id === null ? null : Number(row.ref_id),
    cardPan: row.card_pan,
    reason: row.reason,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    paidAt: row.paid_at === null ? null : new Date(Number(row.paid_at)),
  };
}

/** The payments repository on SQLite: table `payments` (migrations.ts, version 4). */
export function createSqlitePaymentsRepository(db: DatabaseSync): PaymentsRepository {
  const insert = db.prepare(
    `INSERT INTO payments (id, account_id, amount_toman, status, created_at, updated_at)
     VALUES (:id, :account_id, :amount, 'pending', :now, :now) RETURNING *`,
  );
  const setAuthority = db.prepare(
    `UPDATE payments SET authority = :authority, updated_at = :now
     WHERE id = :id AND status = 'pending' AND authority IS NULL RETURNING *`,
  );
  const noteReason = db.prepare(
    `UPDATE payments SET reason = :reason, updated_at = :now WHERE id = :id AND status = 'pending' RETURNING *`,
  );
  const byId = db.prepare('SELECT * FROM payments WHERE id = ?');
  const byAuthority = db.prepare('SELECT * FROM payments WHERE authority = ?');
  // One statement: of concurrent moves of one payment, one updates it.
  const markPaid = db.prepare(
    `UPDATE payments SET status = 'paid', ref_id = :ref_id, card_pan = :card_pan, reason = NULL,
       paid_at = :now, updated_at = :now
     WHERE id = :id AND status != 'paid' RETURNING *`,
  );
  const markFailed = db.prepare(
    `UPDATE payments SET status = 'failed', reason = :reason, updated_at = :now
     WHERE id = :id AND status = 'pending' RETURNING *`,
  );
  const listByAccount = db.prepare(
    'SELECT * FROM payments WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const listPending = db.prepare(
    `SELECT * FROM payments WHERE status = 'pending' AND created_at < ? ORDER BY created_at, id LIMIT ?`,
  );
  const one = (row: unknown) => toRecord(row as PaymentRow | undefined);

  return {
    async create(payment, now) {
      const created = one(
        insert.get({
          id: payment.id,
          account_id: payment.accountId,
          amount: payment.amountToman,
          now: now.getTime(),
        }),
      );
      if (created === null) throw new Error('payment insert returned no row');
      return created;
    },
    async setAuthority(id, authority, now) {
      return one(setAuthority.get({ id, authority, now: now.getTime() }));
    },
    async noteReason(id, reason, now) {
      return one(noteReason.get({ id, reason, now: now.getTime() }));
    },
    async findById(id) {
      return one(byId.get(id));
    },
    async findByAuthority(authority) {
      return one(byAuthority.get(authority));
    },
    async markPaid(id, paid, now) {
      return one(markPaid.get({ id, ref_id: paid.refId, card_pan: paid.cardPan, now: now.getTime() }));
    },
    async markFailed(id, reason, now) {
      return one(markFailed.get({ id, reason, now: now.getTime() }));
    },
    async listByAccount(accountId, limit) {
      return (listByAccount.all(accountId, limit) as unknown as PaymentRow[]).map(
        (row) => one(row) as PaymentRecord,
      );
    },
    async listPending(createdBefore, limit) {
      return (listPending.all(createdBefore.getTime(), limit) as unknown as PaymentRow[]).map(
        (row) => one(row) as PaymentRecord,
      );
    },
  };
}
