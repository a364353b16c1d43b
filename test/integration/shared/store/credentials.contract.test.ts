import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { InvitationPurpose } from '../../../../shared/src/accounts/credentials.repository.ts';
import { describeEachStore, JONGODB_RACES } from './store-under-test.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const HOUR = 3_600_000;

function tokenHash(): string {
  return randomBytes(32).toString('hex');
}

describeEachStore('credentials repository', (store) => {
  async function invite(accountId: string, purpose: InvitationPurpose = 'invite', lifetimeMs = HOUR) {
    const hash = tokenHash();
    await store().credentials.createInvitation(
      { tokenHash: hash, accountId, purpose, expiresAt: later(lifetimeMs) },
      now,
    );
    return hash;
  }

  const use = (hash: string, passwordHash: string, at = later(1_000)) =>
    store().credentials.setPasswordByInvitation(hash, passwordHash, at);

  it('has no password for an account until one is set, then the latest one', async () => {
    const { credentials } = store();
    expect(await credentials.passwordOf('acct_pw')).toBeNull();
    await credentials.setPassword('acct_pw', 'scrypt$first', now);
    expect(await credentials.passwordOf('acct_pw')).toBe('scrypt$first');
    await credentials.setPassword('acct_pw', 'scrypt$second', later(1));
    expect(await credentials.passwordOf('acct_pw')).toBe('scrypt$second');
    expect(await credentials.passwordOf('acct_other')).toBeNull();
  });

  it('has no password for an account that only has a link', async () => {
    await invite('acct_link_only');
    expect(await store().credentials.passwordOf('acct_link_only')).toBeNull();
  });

  it('finds a working link without using it', async () => {
    const hash = await invite('acct_found', 'reset');
    const found = { accountId: 'acct_found', purpose: 'reset' };
    expect(await store().credentials.findInvitation(hash, later(1_000))).toEqual(found);
    expect(await store().credentials.findInvitation(hash, later(2_000))).toEqual(found);
    expect(await store().credentials.findInvitation(tokenHash(), now)).toBeNull();
  });

  it('sets the password through a link once, answering its account and purpose', async () => {
    const hash = await invite('acct_once', 'reset');
    expect(await use(hash, 'scrypt$by-link')).toEqual({ accountId: 'acct_once', purpose: 'reset' });
    expect(await store().credentials.passwordOf('acct_once')).toBe('scrypt$by-link');
    expect(await use(hash, 'scrypt$again', later(2_000))).toBeNull();
    expect(await store().credentials.findInvitation(hash, later(2_000))).toBeNull();
    expect(await store().credentials.passwordOf('acct_once')).toBe('scrypt$by-link');
  });

  it('replaces an earlier password through a reset link', async () => {
    await store().credentials.setPassword('acct_reset', 'scrypt$forgotten', now);
    const hash = await invite('acct_reset', 'reset');
    expect(await use(hash, 'scrypt$new')).not.toBeNull();
    expect(await store().credentials.passwordOf('acct_reset')).toBe('scrypt$new');
  });

  it('refuses an unknown link and an expired one, writing nothing', async () => {
    expect(await use(tokenHash(), 'scrypt$nobody', now)).toBeNull();
    const hash = await invite('acct_expired', 'invite', 10_000);
    expect(await store().credentials.findInvitation(hash, later(10_000))).toBeNull();
    expect(await use(hash, 'scrypt$late', later(10_000))).toBeNull();
    expect(await store().credentials.passwordOf('acct_expired')).toBeNull();
  });

  it('leaves the link usable and the old password in place when the password write fails', async () => {
    await store().credentials.setPassword('acct_failing', 'scrypt$old', now);
    const hash = await invite('acct_failing', 'reset');
    const refused = `scrypt$refused-${randomBytes(4).toString('hex')}`;
    await store().refusePasswordHash(refused);
    await expect(use(hash, refused)).rejects.toThrow();
    expect(await store().credentials.passwordOf('acct_failing')).toBe('scrypt$old');
    expect(await store().credentials.findInvitation(hash, later(2_000))).toEqual({
      accountId: 'acct_failing',
      purpose: 'reset',
    });
    // The holder tries again, and this time the write goes through.
    expect(await use(hash, 'scrypt$retried', later(3_000))).not.toBeNull();
    expect(await store().credentials.passwordOf('acct_failing')).toBe('scrypt$retried');
  });

  it('voids the earlier links of an account when it gets a new one, not those of others', async () => {
    const first = await invite('acct_many');
    const other = await invite('acct_neighbour');
    const second = await invite('acct_many', 'reset');
    expect(await use(first, 'scrypt$first')).toBeNull();
    expect(await use(second, 'scrypt$second')).toEqual({ accountId: 'acct_many', purpose: 'reset' });
    expect(await use(other, 'scrypt$other')).toEqual({ accountId: 'acct_neighbour', purpose: 'invite' });
    expect(await store().credentials.passwordOf('acct_many')).toBe('scrypt$second');
  });

  it('keeps an account’s password when it gets a new link', async () => {
    await store().credentials.setPassword('acct_kept', 'scrypt$kept', now);
    await invite('acct_kept', 'reset');
    expect(await store().credentials.passwordOf('acct_kept')).toBe('scrypt$kept');
  });

  it('lets exactly one of concurrent uses of a link win, across two connections', async (context) => {
    if (store().server === 'jongodb') context.skip(JONGODB_RACES);
    const other = await store().connectAgain();
    for (let round = 0; round < 5; round++) {
      const accountId = `acct_race_${round}`;
      const hash = await invite(accountId);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : other).credentials.setPasswordByInvitation(hash, `scrypt$${i}`, later(1)),
        ),
      );
      const winners = results.flatMap((result, i) => (result === null ? [] : [i]));
      expect(winners).toHaveLength(1);
      // The password is the winner's, not a loser's written after it.
      expect(await store().credentials.passwordOf(accountId)).toBe(`scrypt$${winners[0]}`);
    }
  });
});
