import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { declareIndexes } from '../mongo/indexes.ts';
import { isDuplicateKeyOn } from './mongo-errors.ts';

/** Whether an account's keys may be used at all (spec, check 2: "the user account is active"). */
export type AccountStatus = 'active' | 'inactive';

/** An account as the rest of the code sees it. */
export interface AccountRecord {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly status: AccountStatus;
  readonly createdAt: Date;
}

/** The MongoDB document of collection `accounts`. */
interface AccountDocument {
  _id: string;
  email: string;
  name: string | null;
  status: AccountStatus;
  created_at: Date;
  updated_at: Date;
}

/** Data access to the `accounts` collection. */
export interface AccountsRepository {
  /** Inserts a new active account; `'email_taken'` when another account has this email. */
  create(input: { email: string; name: string | null }, now: Date): Promise<AccountRecord | 'email_taken'>;
  findById(id: string): Promise<AccountRecord | null>;
  /** The account with this (lower-case) email, if any. */
  findByEmail(email: string): Promise<AccountRecord | null>;
  /** Sets the status; null when there is no such account. */
  setStatus(id: string, status: AccountStatus, now: Date): Promise<AccountRecord | null>;
}

export const ACCOUNTS_COLLECTION = 'accounts';
const EMAIL_INDEX = 'email_unique';

declareIndexes(ACCOUNTS_COLLECTION, [
  // serves: create() refusing a second account with the same email, and findByEmail()
  { key: { email: 1 }, name: EMAIL_INDEX, unique: true },
]);

/** A new account id: `acct_` and 24 hex characters of randomness. */
export function newAccountId(): string {
  return `acct_${randomBytes(12).toString('hex')}`;
}

/** The accounts repository on the given database. */
export function createAccountsRepository(db: Db): AccountsRepository {
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
  };
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
