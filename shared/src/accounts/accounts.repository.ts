import { randomBytes } from 'node:crypto';

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

/** A search of accounts by operators: a page of matches, ordered by email. */
export interface AccountSearch {
  /** Matched as a substring of the email or the name, ignoring the case of ASCII letters; '' matches all. */
  readonly query: string;
  readonly limit: number;
  /** `nextCursor` of the previous page: the page starts after it. */
  readonly cursor?: string;
}

export interface AccountPage {
  readonly accounts: AccountRecord[];
  /** Where the next page starts; null on the last page. */
  readonly nextCursor: string | null;
}

/** The accounts half of the accounts-and-keys store contract (SQLite and MongoDB implement it). */
export interface AccountsRepository {
  /** Inserts a new active account; `'email_taken'` when another account has this email. */
  create(input: { email: string; name: string | null }, now: Date): Promise<AccountRecord | 'email_taken'>;
  findById(id: string): Promise<AccountRecord | null>;
  /** The account with this (lower-case) email, if any. */
  findByEmail(email: string): Promise<AccountRecord | null>;
  /** Sets the status; null when there is no such account. */
  setStatus(id: string, status: AccountStatus, now: Date): Promise<AccountRecord | null>;
  /** Accounts whose email or name contains the query, by email ascending, a page at a time. */
  search(input: AccountSearch): Promise<AccountPage>;
}

/** A new account id: `acct_` and 24 hex characters of randomness. */
export function newAccountId(): string {
  return `acct_${randomBytes(12).toString('hex')}`;
}
