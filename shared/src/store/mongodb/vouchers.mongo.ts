import type { Db, Filter } from 'mongodb';
import type { VoucherRecord, VouchersRepository } from '../../vouchers/vouchers.repository.ts';
import { declareIndexes } from './indexes.ts';

/** A voucher as stored: the record's fields in snake case, `_id` its id, the code's digest only. */
export interface VoucherDoc {
  _id: string;
  batch_id: string;
  code_hash: string;
  amount_toman: number;
  note: string | null;
  expires_at: Date | null;
  created_at: Date;
  redeemed_at: Date | null;
  redeemed_by: string | null;
}

export const VOUCHERS_COLLECTION = 'vouchers';

declareIndexes(VOUCHERS_COLLECTION, [
  // serves: redeem() (a voucher by its code's digest)
  { key: { code_hash: 1 }, name: 'code_hash', unique: true },
  // serves: list() (newest first)
  { key: { created_at: -1, _id: -1 }, name: 'created_at' },
]);

function toRecord(doc: VoucherDoc): VoucherRecord {
  return {
    id: doc._id,
    batchId: doc.batch_id,
    codeHash: doc.code_hash,
    amountToman: doc.amount_toman,
    note: doc.note,
    expiresAt: doc.expires_at,
    createdAt: doc.created_at,
    redeemedAt: doc.redeemed_at,
    redeemedBy: doc.redeemed_by,
  };
}

/** The vouchers repository on MongoDB; a redemption is one conditional single-document update. */
export function createMongoVouchersRepository(db: Db): VouchersRepository {
  const vouchers = db.collection<VoucherDoc>(VOUCHERS_COLLECTION);

  return {
    async createMany(list, now) {
      if (list.length === 0) return;
      await vouchers.insertMany(
        list.map((v) => ({
          _id: v.id,
          batch_id: v.batchId,
          code_hash: v.codeHash,
          amount_toman: v.amountToman,
          note: v.note,
          expires_at: v.expiresAt,
          created_at: now,
          redeemed_at: null,
          redeemed_by: null,
        })),
      );
    },
    async redeem(codeHash, accountId, now) {
      const won = await vouchers.findOneAndUpdate(
        {
          code_hash: codeHash,
          redeemed_at: null,
          $or: [{ expires_at: null }, { expires_at: { $gt: now } }],
        },
        { $set: { redeemed_at: now, redeemed_by: accountId } },
        { returnDocument: 'after' },
      );
      if (won !== null) return { outcome: 'redeemed', voucher: toRecord(won) };
      const found = await vouchers.findOne({ code_hash: codeHash });
      if (found === null || found.redeemed_at === null) return { outcome: 'not_found' };
      return { outcome: 'used', voucher: toRecord(found) };
    },
    async list(query) {
      const filter: Filter<VoucherDoc> =
        query.used === undefined ? {} : query.used ? { redeemed_at: { $ne: null } } : { redeemed_at: null };
      const docs = await vouchers.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray();
      return docs.map(toRecord);
    },
  };
}
