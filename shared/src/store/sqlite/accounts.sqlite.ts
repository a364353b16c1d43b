import type { DatabaseSync } from 'node:sqlite';
import {
  type AccountRecord,
  type AccountStatus,
  type AccountsRepository,
  newAccountId,
} from '../../accounts/accounts.repository.ts';
import { foldAscii, pageOf } from '../account-search.ts';
import { isUniqueViolation } from './sqlite-errors.ts';

/** A row of table `accounts` (migrations.ts); times in ms, far below 2^53. */
interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  status: AccountStatus;
  created_at: number;
  updated_at: number;
}

/** The accounts repository on SQLite. */
export function createSqliteAccountsRepository(db: DatabaseSync): AccountsRepository {
  const insert = db.prepare(
    `INSERT INTO accounts (id, email, name, status, created_at, updated_at)
     VALUES (:id, :email, :name, 'active', :now, :now) RETURNING *`,
  );
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  const byEmail = db.prepare('SELECT * FROM accounts WHERE email = ?');
  const setStatus = db.prepare(
    'UPDATE accounts SET status = :status, updated_at = :now WHERE id = :id RETURNING *',
  );
  // A substring search scans the table (no index serves it); the email index serves the order and
  // the cursor. SQLite's lower() folds ASCII letters only, as the query's folding does.
  const search = db.prepare(
    `SELECT * FROM accounts
     WHERE email > :after
       AND (:query = '' OR instr(email, :query) > 0 OR instr(lower(coalesce(name, '')), :query) > 0)
     ORDER BY email LIMIT :limit`,
  );

  return {
    async create(input, now) {
      try {
        const row = insert.get({
          id: newAccountId(),
          email: input.email,
          name: input.name,
          now: now.getTime(),
        });
        return toRecord(row as unknown as AccountRow);
      } catch (error) {
        if (isUniqueViolation(error, 'accounts.email')) return 'email_taken';
        throw error;
      }
    },

    async findById(id) {
      return toRecordOrNull(byId.get(id));
    },

    async findByEmail(email) {
      return toRecordOrNull(byEmail.get(email));
    },

    async setStatus(id, status, now) {
      return toRecordOrNull(setStatus.get({ id, status, now: now.getTime() }));
    },

    async search(input) {
      const rows = search.all({
        after: input.cursor ?? '',
        query: foldAscii(input.query),
        limit: input.limit + 1,
      }) as unknown as AccountRow[];
      return pageOf(rows.map(toRecord), input.limit);
    },
  };
}

function toRecordOrNull(row: unknown): AccountRecord | null {
  return row === undefined ? null : toRecord(row as AccountRow);
}

function toRecord(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    createdAt: new Date(row.created_at),
  };
}
