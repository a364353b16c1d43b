import type { BillingDeps } from './billing-deps.ts';
import type { SettleCall } from './billing-scripts.ts';
import type { AppliedTargets } from './guarded-apply.ts';
import { type KeySpendDoc, keySpendOf } from './key-spend.repository.ts';
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
export async function loadSpendSnapshot(
  deps: BillingDeps,
  accountId: string,
  keyId: string,
  month: string,
): Promise<void> {
  const state = await deps.store.keySpend.findState(accountId, keyId, month);
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
  try {
    await deps.scripts.settle(settleCall(deps, entry, applied));
  } catch (err) {
    deps.logger.warn({ err, entryId: entry._id }, 'could not publish a settlement to Redis');
  }
}

/** An applied entry and its targets after the update that counted it. */
export interface Settlement {
  readonly entry: LedgerDoc;
  readonly applied: AppliedTargets | null;
}

/**
 * `publishSettlement` of a batch in one Redis pipeline. Entries of one wallet share its state after
 * the batch's update: the first call writes it (counting all of them) and drops one hold, the next
 * ones only drop theirs, so admission may count a charge twice for a moment but never miss it.
 */
export async function publishSettlements(
  deps: BillingDeps,
  settlements: readonly Settlement[],
): Promise<void> {
  if (settlements.length === 0) return;
  try {
    await deps.scripts.settleMany(settlements.map(({ entry, applied }) => settleCall(deps, entry, applied)));
  } catch (err) {
    const entryIds = settlements.map(({ entry }) => entry._id);
    deps.logger.warn({ err, entryIds }, 'could not publish settlements to Redis');
  }
}

function settleCall(deps: BillingDeps, entry: LedgerDoc, applied: AppliedTargets | null): SettleCall {
  const { wallet, keySpend } = applied ?? { wallet: null, keySpend: null };
  return {
    requestId: entry._id,
    walletHolds: deps.keys.walletHolds(entry.account_id),
    keyHolds: entry.key_id === null ? null : deps.keys.keyHolds(entry.key_id),
    wallet:
      wallet === null
        ? null
        : { key: deps.keys.walletSnapshot(entry.account_id), value: wallet.balance, version: wallet.version },
    spend: keySpend === null || entry.key_id === null ? null : spendWrite(deps, keySpend, entry.key_id),
    snapshotTtlMs: deps.settings.snapshotTtlMs,
  };
}

/** The snapshot of one key's month spend, from its account's key spend document. */
function spendWrite(deps: BillingDeps, doc: KeySpendDoc, keyId: string): SettleCall['spend'] {
  const { spent, version } = keySpendOf(doc, keyId);
  return { key: deps.keys.spendSnapshot(keyId, doc.month), value: spent, version };
}
