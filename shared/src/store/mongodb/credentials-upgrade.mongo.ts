import type { Db } from 'mongodb';
import type { InvitationPurpose } from '../../accounts/credentials.repository.ts';
import { CREDENTIALS_COLLECTION, type CredentialDocument, type LinkDocument } from './credentials.mongo.ts';
import { isDuplicateKeyOn } from './mongo-errors.ts';

/** The collection links were first kept in, apart from the password they set. */
const OLD_INVITATIONS_COLLECTION = 'invitations';

interface OldInvitationDocument {
  _id: string;
  account_id: string;
  purpose: InvitationPurpose;
  expires_at: Date;
  created_at: Date;
  used_at: Date | null;
}

/**
 * Moves the links still working in the first `invitations` collection into their account's
 * credentials document (where they now live, credentials.mongo.ts), and deletes them and the dead
 * ones from it, so a holder's link made before the upgrade works after it. Run at start; idempotent
 * and safe when several replicas start together: a link goes only where the account has no newer
 * one. Costs one empty query once the collection is empty (it is emptied, not dropped: `drop` is not
 * in every MongoDB-wire server).
 */
export async function upgradeInvitationDocuments(db: Db, now = new Date()): Promise<void> {
  const old = db.collection<OldInvitationDocument>(OLD_INVITATIONS_COLLECTION);
  const credentials = db.collection<CredentialDocument>(CREDENTIALS_COLLECTION);
  const moved: string[] = [];
  for await (const doc of old.find({ used_at: null, expires_at: { $gt: now } })) {
    const link: LinkDocument = {
      token_hash: doc._id,
      purpose: doc.purpose,
      expires_at: doc.expires_at,
      created_at: doc.created_at,
    };
    await credentials
      .updateOne(
        {
          _id: doc.account_id,
          $or: [{ link: { $exists: false } }, { 'link.created_at': { $lt: link.created_at } }],
        },
        { $set: { link }, $setOnInsert: { updated_at: now } },
        { upsert: true },
      )
      .catch((err: unknown) => {
        // The account's document holds a link as new or newer: the upsert's insert met its id.
        if (!isDuplicateKeyOn(err, '_id_')) throw err;
      });
    moved.push(doc._id);
  }
  await old.deleteMany({
    $or: [{ _id: { $in: moved } }, { used_at: { $ne: null } }, { expires_at: { $lte: now } }],
  });
}
