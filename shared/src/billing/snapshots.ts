import type { BillingDeps } from './billing-deps.ts';
import type { AppliedTargets } from './guarded-apply.ts';
import type { LedgerDoc } from './ledger.repository.ts';

/**
 * Admission reads copies of the wallet and the key's month spend from Redis; MongoDB stays
 * authoritative. A copy is written only over an older version, so a slow writer never puts back a
 * stale balance, and it expires, so a copy missed after a crash is reloaded.
 */

/** Loads the wallet's balance from MongoDB into its snapshot. */
export async function loadWalletSnapshot(deps: BillingDeps, accountId: string): Promise<void> {
  const state = await deps.store.wallets.findState(accountId);
  const write = { key: deps.keys.walletSnapshot(accountId), value: state.balance, version: state.version };
  await deps.scripts.putSnapshot('balance', write, deps.settings.snapshotTtlMs);
}

/** Loads a key's month spend from MongoDB into its snapshot. */
export async function loadSpendSnapshot(deps: BillingDeps, keyId: string, month: string): Promise<void> {
  const state = await deps.store.keySpend.findState(keyId, month);
  const write = { key: deps.keys.spendSnapshot(keyId, month), value: state.spent, version: state.version };
  await deps.scripts.putSnapshot('spent', write, deps.settings.snapshotTtlMs);
}

/**
 * After an entry moved money: drops the request's hold and refreshes the snapshots, in one Redis
 * step. A failure is only logged: the hold expires and the snapshot is reloaded after its TTL, and
 * the money already moved in MongoDB, so failing the caller would only invite a useless retry.
 */
export async function publishSettlement(
  deps: BillingDeps,
  entry: LedgerDoc,
  applied: AppliedTargets | null,
): Promise<void> {
  const { wallet, keySpend } = applied ?? { wallet: null, keySpend: null };
  try {
    await deps.scripts.settle({
      requestId: entry._id,
      walletHolds: deps.keys.walletHolds(entry.account_id),
      keyHolds: entry.key_id === null ? null : deps.keys.keyHolds(entry.key_id),
      wallet:
        wallet === null
          ? null
          : {
              key: deps.keys.walletSnapshot(entry.account_id),
              value: wallet.balance,
              version: wallet.version,
            },
      spend:
        keySpend === null
          ? null
          : {
              key: deps.keys.spendSnapshot(keySpend.key_id, keySpend.month),
              value: keySpend.spent,
              version: keySpend.version,
            },
      snapshotTtlMs: deps.settings.snapshotTtlMs,
    });
  } catch (err) {
    deps.logger.warn({ err, entryId: entry._id }, 'could not publish a settlement to Redis');
  }
}
