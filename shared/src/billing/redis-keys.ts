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

export interface BillingKeys {
  /** The key's rate window counter (check 4). */
  rateWindow(keyId: string): string;
  /** `{balance, version}` copy of the wallet (check 5). */
  walletSnapshot(accountId: string): string;
  /** `{spent, version}` copy of the key's month spend (check 6). */
  spendSnapshot(keyId: string, month: string): string;
  walletHolds(accountId: string): HoldKeys;
  keyHolds(keyId: string): HoldKeys;
}

/** Key names under a prefix (the process's, or a test's own). */
export function billingKeys(prefix: string): BillingKeys {
  const holds = (scope: string): HoldKeys => ({
    expiries: `${prefix}holds:${scope}`,
    amounts: `${prefix}holds:${scope}:amounts`,
  });
  return {
    rateWindow: (keyId) => `${prefix}rl:${keyId}`,
    walletSnapshot: (accountId) => `${prefix}wallet:${accountId}`,
    spendSnapshot: (keyId, month) => `${prefix}spend:${keyId}:${month}`,
    walletHolds: (accountId) => holds(`wallet:${accountId}`),
    keyHolds: (keyId) => holds(`key:${keyId}`),
  };
}
