import type { Db } from 'mongodb';
import type { CredentialsRepository, InvitationPurpose } from '../../accounts/credentials.repository.ts';
import { declareIndexes } from './indexes.ts';

/** Collection `credentials`: an account's password hash (`_id`: the account id). */
interface CredentialDocument {
  _id: string;
  password_hash: string;
  updated_at: Date;
}

/** Collection `invitations`: one-time links by the SHA-256 of their token (`_id`). */
interface InvitationDocument {
  _id: string;
  account_id: string;
  purpose: InvitationPurpose;
  expires_at: Date;
  created_at: Date;
  used_at: Date | null;
}

const CREDENTIALS_COLLECTION = 'credentials';
const INVITATIONS_COLLECTION = 'invitations';

// Every query is by `_id` (the account id), which the default index serves.
declareIndexes(CREDENTIALS_COLLECTION, []);
declareIndexes(INVITATIONS_COLLECTION, [
  // serves: createInvitation() voiding the account's earlier links (deleteMany by account_id)
  { key: { account_id: 1 }, name: 'account' },
]);

/** The credentials repository on MongoDB. */
export function createMongoCredentialsRepository(db: Db): CredentialsRepository {
  const credentials = db.collection<CredentialDocument>(CREDENTIALS_COLLECTION);
  const invitations = db.collection<InvitationDocument>(INVITATIONS_COLLECTION);
  return {
    async setPassword(accountId, passwordHash, now) {
      await credentials.updateOne(
        { _id: accountId },
        { $set: { password_hash: passwordHash, updated_at: now } },
        { upsert: true },
      );
    },

    async passwordOf(accountId) {
      return (await credentials.findOne({ _id: accountId }))?.password_hash ?? null;
    },

    async createInvitation(invitation, now) {
      await invitations.insertOne({
        _id: invitation.tokenHash,
        account_id: invitation.accountId,
        purpose: invitation.purpose,
        expires_at: invitation.expiresAt,
        created_at: now,
        used_at: null,
      });
      // Inserted first, then the others voided: two concurrent creations may void each other (the
      // operator makes another), but never leave two links working.
      await invitations.deleteMany({ account_id: invitation.accountId, _id: { $ne: invitation.tokenHash } });
    },

    async consumeInvitation(tokenHash, now) {
      const used = await invitations.findOneAndUpdate(
        { _id: tokenHash, used_at: null, expires_at: { $gt: now } },
        { $set: { used_at: now } },
        { returnDocument: 'after' },
      );
      return used === null ? null : { accountId: used.account_id, purpose: used.purpose };
    },
  };
}
