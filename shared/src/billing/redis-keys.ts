import { hashTag } from '../redis/hash-tags.ts';

/**
 * Names of the billing keys in Redis. Snapshots are copies of the store's state for admission; holds
 * are a sorted set (member: request id, score: expiry ms) beside a hash of amounts and their total.
 */
export interface HoldKeys {
  readonly expiries: string;
  readonly amounts: string;
}

/** Request ids held in one hold set (a wallet's or a key's). */
export interface HoldSet {
  readonly holds: HoldKeys;
  readonly ids: readonly string[];
}

/** Request ids grouped by the hold set they are held in, each set once, in first-seen order. */
export function holdSetsOf(held: Iterable<readonly [holds: HoldKeys, id: string]>): HoldSet[] {
  const sets = new Map<string, { holds: HoldKeys; ids: string[] }>();
  for (const [holds, id] of held) {
    const set = sets.get(holds.expiries);
    if (set === undefined) sets.set(holds.expiries, { holds, ids: [id] });
    else set.ids.push(id);
  }
  return [...sets.values()];
}

/**
 * Every key of one account carries its hash tag `{a:<accountId>}`: the admission script touches the
 * key's rate window, spend snapshot and holds with the account's wallet snapshot and holds in one
 * call, which a Cluster runs only on keys of one slot. Different accounts land on different slots
 * (and so spread over a Cluster's masters); on one node the tag is only part of the name.
 */
export interface BillingKeys {
  /** The key's rate window counter (check 4). */
  rateWindow(accountId: string, keyId: string): string;
  /** `{balance, version}` copy of the wallet (check 5). */
  walletSnapshot(accountId: string): string;
  /** `{spent, version}` copy of the key's month spend (check 6). */
  spendSnapshot(accountId: string, keyId: string, month: string): string;
  walletHolds(accountId: string): HoldKeys;
  keyHolds(accountId: string, keyId: string): HoldKeys;
}

/** Key names under a prefix (the process's, or a test's own). */
export function billingKeys(prefix: string): BillingKeys {
  const account = (accountId: string) => hashTag(`a:${accountId}`);
  const holds = (scope: string): HoldKeys => ({
    expiries: `${prefix}holds:${scope}`,
    amounts: `${prefix}holds:${scope}:amounts`,
  });
  return {
    rateWindow: (accountId, keyId) => `${prefix}rl:${account(accountId)}:${keyId}`,
    walletSnapshot: (accountId) => `${prefix}wallet:${account(accountId)}`,
    spendSnapshot: (accountId, keyId, month) => `${prefix}spend:${account(accountId)}:${keyId}:${month}`,
    walletHolds: (accountId) => holds(`wallet:${account(accountId)}`),
    keyHolds: (accountId, keyId) => holds(`key:${account(accountId)}:${keyId}`),
  };
}
