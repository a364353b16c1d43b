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

  it('has no password for an account until one is set, then the latest one', async () => {
    const { credentials } = store();
    expect(await credentials.passwordOf('acct_pw')).toBeNull();
    await credentials.setPassword('acct_pw', 'scrypt$first', now);
    expect(await credentials.passwordOf('acct_pw')).toBe('scrypt$first');
    await credentials.setPassword('acct_pw', 'scrypt$second', later(1));
    expect(await credentials.passwordOf('acct_pw')).toBe('scrypt$second');
    expect(await credentials.passwordOf('acct_other')).toBeNull();
  });

  it('consumes a link once, answering its account and purpose', async () => {
    const hash = await invite('acct_once', 'reset');
    expect(await store().credentials.consumeInvitation(hash, later(1_000))).toEqual({
      accountId: 'acct_once',
      purpose: 'reset',
    });
    expect(await store().credentials.consumeInvitation(hash, later(2_000))).toBeNull();
  });

  it('refuses an unknown link and an expired one', async () => {
    expect(await store().credentials.consumeInvitation(tokenHash(), now)).toBeNull();
    const hash = await invite('acct_expired', 'invite', 10_000);
    expect(await store().credentials.consumeInvitation(hash, later(10_000))).toBeNull();
    // Refused for being expired, it was not used up: it stays refused, and counts for nothing.
    expect(await store().credentials.consumeInvitation(hash, later(20_000))).toBeNull();
  });

  it('voids the earlier links of an account when it gets a new one, not those of others', async () => {
    const first = await invite('acct_many');
    const other = await invite('acct_neighbour');
    const second = await invite('acct_many', 'reset');
    expect(await store().credentials.consumeInvitation(first, later(1))).toBeNull();
    expect(await store().credentials.consumeInvitation(second, later(1))).toEqual({
      accountId: 'acct_many',
      purpose: 'reset',
    });
    expect(await store().credentials.consumeInvitation(other, later(1))).toEqual({
      accountId: 'acct_neighbour',
      purpose: 'invite',
    });
  });

  it('lets exactly one of concurrent uses of a link win, across two connections', async (context) => {
    if (store().server === 'jongodb') context.skip(JONGODB_RACES);
    const other = await store().connectAgain();
    for (let round = 0; round < 5; round++) {
      const hash = await invite(`acct_race_${round}`);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : other).credentials.consumeInvitation(hash, later(1)),
        ),
      );
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    }
  });
});
