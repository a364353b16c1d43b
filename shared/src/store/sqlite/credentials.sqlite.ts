import type { DatabaseSync } from 'node:sqlite';
import type {
  ConsumedInvitation,
  CredentialsRepository,
  InvitationPurpose,
} from '../../accounts/credentials.repository.ts';
import { transaction } from './database.ts';

type LinkRow = { account_id: string; purpose: InvitationPurpose };

/** The credentials repository on SQLite: tables `account_credentials` and `invitations` (migrations.ts). */
export function createSqliteCredentialsRepository(db: DatabaseSync): CredentialsRepository {
  const setPassword = db.prepare(
    `INSERT INTO account_credentials (account_id, password_hash, updated_at) VALUES (:account_id, :hash, :now)
     ON CONFLICT (account_id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
  );
  const passwordOf = db.prepare('SELECT password_hash FROM account_credentials WHERE account_id = ?');
  const dropLinks = db.prepare('DELETE FROM invitations WHERE account_id = ?');
  const insertLink = db.prepare(
    `INSERT INTO invitations (token_hash, account_id, purpose, expires_at, created_at, used_at)
     VALUES (:token_hash, :account_id, :purpose, :expires_at, :now, NULL)`,
  );
  const findLink = db.prepare(
    `SELECT account_id, purpose FROM invitations
     WHERE token_hash = :token_hash AND used_at IS NULL AND expires_at > :now`,
  );
  // One statement: of two concurrent uses of a token (two processes on the file), one updates it.
  const consume = db.prepare(
    `UPDATE invitations SET used_at = :now
     WHERE token_hash = :token_hash AND used_at IS NULL AND expires_at > :now
     RETURNING account_id, purpose`,
  );
  const linkOf = (row: LinkRow | undefined): ConsumedInvitation | null =>
    row === undefined ? null : { accountId: row.account_id, purpose: row.purpose };

  return {
    async setPassword(accountId, passwordHash, now) {
      setPassword.run({ account_id: accountId, hash: passwordHash, now: now.getTime() });
    },

    async passwordOf(accountId) {
      const row = passwordOf.get(accountId) as { password_hash: string } | undefined;
      return row?.password_hash ?? null;
    },

    async createInvitation(invitation, now) {
      transaction(db, () => {
        dropLinks.run(invitation.accountId);
        insertLink.run({
          token_hash: invitation.tokenHash,
          account_id: invitation.accountId,
          purpose: invitation.purpose,
          expires_at: invitation.expiresAt.getTime(),
          now: now.getTime(),
        });
      });
    },

    async findInvitation(tokenHash, now) {
      return linkOf(findLink.get({ token_hash: tokenHash, now: now.getTime() }) as LinkRow | undefined);
    },

    async setPasswordByInvitation(tokenHash, passwordHash, now) {
      // One transaction: a failed password write rolls the link's use back with it.
      return transaction(db, () => {
        const link = linkOf(
          consume.get({ token_hash: tokenHash, now: now.getTime() }) as LinkRow | undefined,
        );
        if (link !== null)
          setPassword.run({ account_id: link.accountId, hash: passwordHash, now: now.getTime() });
        return link;
      });
    },
  };
}
