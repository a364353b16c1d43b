import type { Db, Filter } from 'mongodb';
import {
  type AccountRecord,
  type AccountStatus,
  type AccountsRepository,
  newAccountId,
} from '../../accounts/accounts.repository.ts';
import { foldAscii, pageOf } from '../account-search.ts';
import { declareIndexes } from './indexes.ts';
import { isDuplicateKeyOn } from './mongo-errors.ts';

/** The MongoDB document of collection `accounts`. */
interface AccountDocument {
  _id: string;
  email: string;
  name: string | null;
  status: AccountStatus;
  created_at: Date;
  updated_at: Date;
}

export const ACCOUNTS_COLLECTION = 'accounts';
const EMAIL_INDEX = 'email_unique';

declareIndexes(ACCOUNTS_COLLECTION, [
  // serves: create() refusing a second account with the same email, findByEmail(), and the order
  // and cursor of search() (the substring match itself scans)
  { key: { email: 1 }, name: EMAIL_INDEX, unique: true },
]);

/** The accounts repository on MongoDB. */
export function createMongoAccountsRepository(db: Db): AccountsRepository {
  const collection = db.collection<AccountDocument>(ACCOUNTS_COLLECTION);
  return {
    async create(input, now) {
      const document: AccountDocument = {
        _id: newAccountId(),
        email: input.email,
        name: input.name,
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      try {
        await collection.insertOne(document);
      } catch (error) {
        if (isDuplicateKeyOn(error, EMAIL_INDEX)) return 'email_taken';
        throw error;
      }
      return toRecord(document);
    },

    async findById(id) {
      const document = await collection.findOne({ _id: id });
      return document === null ? null : toRecord(document);
    },

    async findByEmail(email) {
      const document = await collection.findOne({ email });
      return document === null ? null : toRecord(document);
    },

    async setStatus(id, status, now) {
      const document = await collection.findOneAndUpdate(
        { _id: id },
        { $set: { status, updated_at: now } },
        { returnDocument: 'after' },
      );
      return document === null ? null : toRecord(document);
    },

    async search(input) {
      const filter: Filter<AccountDocument> = { email: { $gt: input.cursor ?? '' } };
      const query = foldAscii(input.query);
      if (query !== '') {
        const pattern = { $regex: escapeRegex(query), $options: 'i' };
        filter.$or = [{ email: pattern }, { name: pattern }];
      }
      const found = await collection
        .find(filter)
        .sort({ email: 1 })
        .limit(input.limit + 1)
        .toArray();
      return pageOf(found.map(toRecord), input.limit);
    },
  };
}

/** The query as a literal pattern: a search for `a.b` must not match `axb`. */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function toRecord(document: AccountDocument): AccountRecord {
  return {
    id: document._id,
    email: document.email,
    name: document.name ?? null,
    status: document.status,
    createdAt: document.created_at,
  };
}
