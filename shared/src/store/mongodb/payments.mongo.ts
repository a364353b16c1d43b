import type { Db } from 'mongodb';
import type { PaymentRecord, PaymentStatus, PaymentsRepository } from '../../payments/payments.repository.ts';
import { declareIndexes } from './indexes.ts';

/** A payment as stored: the record's fields in snake case, `_id` its id. */
export interface PaymentDoc {
  _id: string;
  account_id: string;
  amount_toman: number;
  status: PaymentStatus;
  /** Absent until the gateway answered (the unique index is sparse). */
  authority?: string;
  ref_id: number | null;
  card_pan: string | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  paid_at: Date | null;
}

export const PAYMENTS_COLLECTION = 'payments';

declareIndexes(PAYMENTS_COLLECTION, [
  // serves: findByAuthority() (the gateway's callback); sparse: a payment without one is not in it
  { key: { authority: 1 }, name: 'authority', unique: true, sparse: true },
  // serves: listByAccount() (newest first)
  { key: { account_id: 1, created_at: -1, _id: -1 }, name: 'account_created_at' },
  // serves: listPending() (the reconciler)
  { key: { status: 1, created_at: 1 }, name: 'status_created_at' },
]);

function toRecord(doc: PaymentDoc | null): PaymentRecord | null {
  if (doc === null) return null;
  return {
    id: doc._id,
    accountId: doc.account_id,
    amountToman: doc.amount_toman,
    status: doc.status,
    authority: doc.authority ?? null,
    refId: doc.ref_id,
    cardPan: doc.card_pan,
    reason: doc.reason,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
    paidAt: doc.paid_at,
  };
}

/** The payments repository on MongoDB; every move is a conditional single-document update. */
export function createMongoPaymentsRepository(db: Db): PaymentsRepository {
  const payments = db.collection<PaymentDoc>(PAYMENTS_COLLECTION);
  const after = { returnDocument: 'after' } as const;

  return {
    async create(payment, now) {
      const doc: PaymentDoc = {
        _id: payment.id,
        account_id: payment.accountId,
        amount_toman: payment.amountToman,
        status: 'pending',
        ref_id: null,
        card_pan: null,
        reason: null,
        created_at: now,
        updated_at: now,
        paid_at: null,
      };
      await payments.insertOne(doc);
      return toRecord(doc) as PaymentRecord;
    },
    async setAuthority(id, authority, now) {
      return toRecord(
        await payments.findOneAndUpdate(
          { _id: id, status: 'pending', authority: { $exists: false } },
          { $set: { authority, updated_at: now } },
          after,
        ),
      );
    },
    async noteReason(id, reason, now) {
      return toRecord(
        await payments.findOneAndUpdate(
          { _id: id, status: 'pending' },
          { $set: { reason, updated_at: now } },
          after,
        ),
      );
    },
    async findById(id) {
      return toRecord(await payments.findOne({ _id: id }));
    },
    async findByAuthority(authority) {
      return toRecord(await payments.findOne({ authority }));
    },
    async markPaid(id, paid, now) {
      return toRecord(
        await payments.findOneAndUpdate(
          { _id: id, status: { $ne: 'paid' } },
          {
            $set: {
              status: 'paid',
              ref_id: paid.refId,
              card_pan: paid.cardPan,
              reason: null,
              paid_at: now,
              updated_at: now,
            },
          },
          after,
        ),
      );
    },
    async markFailed(id, reason, now) {
      return toRecord(
        await payments.findOneAndUpdate(
          { _id: id, status: 'pending' },
          { $set: { status: 'failed', reason, updated_at: now } },
          after,
        ),
      );
    },
    async listByAccount(accountId, limit) {
      const docs = await payments
        .find({ account_id: accountId })
        .sort({ created_at: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => toRecord(doc) as PaymentRecord);
    },
    async listPending(createdBefore, limit) {
      const docs = await payments
        .find({ status: 'pending', created_at: { $lt: createdBefore } })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => toRecord(doc) as PaymentRecord);
    },
  };
}
