/**
 * Links kept in the first `invitations` collection (apart from the password they set) are moved
 * into their account's credentials document at start, so a link made before the upgrade works
 * after it; used and expired ones are not carried over, and a newer link is never replaced.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMongo } from '../../../../../shared/src/store/mongodb/connect.ts';
import { upgradeInvitationDocuments } from '../../../../../shared/src/store/mongodb/credentials-upgrade.mongo.ts';
import { openMongoStore } from '../../../../../shared/src/store/mongodb/mongo-store.ts';
import type { Store } from '../../../../../shared/src/store/store.ts';
import { captureLogger } from '../../../../helpers/capture-logger.ts';
import { freshMongoOptions } from '../store-under-test.ts';

const now = new Date();
const hour = 3_600_000;
const ago = (ms: number) => new Date(now.getTime() - ms);
const ahead = (ms: number) => new Date(now.getTime() + ms);
const tokenHash = () => randomBytes(32).toString('hex');

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function freshDatabase(): Promise<{ db: Db; open: () => Promise<Store> }> {
  const options = freshMongoOptions();
  const mongo = await connectMongo(options);
  cleanups.push(async () => {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });
  const open = async () => {
    const store = await openMongoStore(options, { logger: captureLogger().logger });
    cleanups.push(() => store.close());
    return store;
  };
  return { db: mongo.db, open };
}

type OldLink = ReturnType<typeof oldLink>;

function oldLink(accountId: string, fields: { createdAt: Date; expiresAt: Date; usedAt?: Date }) {
  return {
    _id: tokenHash(),
    account_id: accountId,
    purpose: 'invite' as const,
    created_at: fields.createdAt,
    expires_at: fields.expiresAt,
    used_at: fields.usedAt ?? null,
  };
}

describe('MongoDB credentials upgrade', () => {
  it('moves the working links of the old collection, empties it, and is harmless run again', async () => {
    const { db, open } = await freshDatabase();
    const working = oldLink('acct_working', { createdAt: ago(hour), expiresAt: ahead(hour) });
    const used = oldLink('acct_used', { createdAt: ago(hour), expiresAt: ahead(hour), usedAt: ago(1) });
    const expired = oldLink('acct_expired', { createdAt: ago(2 * hour), expiresAt: ago(hour) });
    await db.collection<OldLink>('invitations').insertMany([working, used, expired]);
    await db
      .collection<{ _id: string; password_hash: string; updated_at: Date }>('credentials')
      .insertOne({ _id: 'acct_working', password_hash: 'scrypt$old', updated_at: ago(hour) });

    const store = await open();
    const { credentials } = store;
    expect(await credentials.findInvitation(working._id, now)).toEqual({
      accountId: 'acct_working',
      purpose: 'invite',
    });
    expect(await credentials.findInvitation(used._id, now)).toBeNull();
    expect(await credentials.findInvitation(expired._id, now)).toBeNull();
    expect(await credentials.passwordOf('acct_working')).toBe('scrypt$old');
    expect(await db.collection<OldLink>('invitations').countDocuments()).toBe(0);

    await upgradeInvitationDocuments(db, now);
    expect(await credentials.setPasswordByInvitation(working._id, 'scrypt$new', now)).not.toBeNull();
    expect(await credentials.passwordOf('acct_working')).toBe('scrypt$new');
  });

  it('never replaces a newer link the account already has', async () => {
    const { db, open } = await freshDatabase();
    const store = await open();
    const newer = tokenHash();
    await store.credentials.createInvitation(
      { tokenHash: newer, accountId: 'acct_both', purpose: 'reset', expiresAt: ahead(hour) },
      now,
    );
    const older = oldLink('acct_both', { createdAt: ago(hour), expiresAt: ahead(hour) });
    await db.collection<OldLink>('invitations').insertOne(older);
    await upgradeInvitationDocuments(db, now);
    expect(await store.credentials.findInvitation(newer, now)).toEqual({
      accountId: 'acct_both',
      purpose: 'reset',
    });
    expect(await store.credentials.findInvitation(older._id, now)).toBeNull();
  });
});
