import type { Db } from 'mongodb';
import type {
  ConsumedInvitation,
  CredentialsRepository,
  InvitationPurpose,
} from '../../accounts/credentials.repository.ts';
import { declareIndexes } from './indexes.ts';

/** The one working link of an account (a new one replaces it; using it removes it). */
export interface LinkDocument {
  /** SHA-256 of the link's token, never the token. */
  token_hash: string;
  purpose: InvitationPurpose;
  expires_at: Date;
  created_at: Date;
}

/**
 * Collection `credentials`, one document per account (`_id`: the account id): its password hash,
 * once set, and its working one-time link, while it has one. The link lives in the document it
 * sets the password of, so using it is one single-document write: the password is set and the link
 * removed together or not at all (MongoDB has no transaction across documents without a replica
 * set, and a link used up before a failed password write would leave the holder with neither).
 */
export interface CredentialDocument {
  _id: string;
  password_hash?: string;
  updated_at: Date;
  link?: LinkDocument;
}

export const CREDENTIALS_COLLECTION = 'credentials';

declareIndexes(CREDENTIALS_COLLECTION, [
  // serves: findInvitation() and setPasswordByInvitation() (a link by its token's digest); sparse:
  // an account without a working link is not in it
  { key: { 'link.token_hash': 1 }, name: 'link_token', sparse: true },
]);

/** The credentials repository on MongoDB. */
export function createMongoCredentialsRepository(db: Db): CredentialsRepository {
  const credentials = db.collection<CredentialDocument>(CREDENTIALS_COLLECTION);
  const usable = (tokenHash: string, now: Date) => ({
    'link.token_hash': tokenHash,
    'link.expires_at': { $gt: now },
  });
  const linkOf = (doc: CredentialDocument | null): ConsumedInvitation | null =>
    doc?.link === undefined ? null : { accountId: doc._id, purpose: doc.link.purpose };

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
      // Replacing the one link field voids the earlier link in the same write.
      const link: LinkDocument = {
        token_hash: invitation.tokenHash,
        purpose: invitation.purpose,
        expires_at: invitation.expiresAt,
        created_at: now,
      };
      await credentials.updateOne(
        { _id: invitation.accountId },
        { $set: { link }, $setOnInsert: { updated_at: now } },
        { upsert: true },
      );
    },

    async findInvitation(tokenHash, now) {
      return linkOf(await credentials.findOne(usable(tokenHash, now)));
    },

    async setPasswordByInvitation(tokenHash, passwordHash, now) {
      const before = await credentials.findOneAndUpdate(
        usable(tokenHash, now),
        { $set: { password_hash: passwordHash, updated_at: now }, $unset: { link: '' } },
        { returnDocument: 'before' },
      );
      return linkOf(before);
    },
  };
}
