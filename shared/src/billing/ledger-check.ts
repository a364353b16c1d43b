import type { BillingDeps } from './billing-deps.ts';
import type { LedgerDoc } from './ledger.repository.ts';
import { markerOf } from './pending-marker.ts';
import type { WalletDoc } from './wallets.repository.ts';

/** A wallet whose balance is not what its ledger entries add up to. */
export interface LedgerDifference {
  readonly accountId: string;
  readonly balanceMicros: bigint;
  readonly ledgerMicros: bigint;
}

// A difference seen while entries move can be a race of the reads; it counts when it persists.
const CONFIRMATIONS = 2;
const CONFIRMATION_DELAY_MS = 50;

/**
 * The invariant of the money core: every wallet's balance equals the sum of its entries that are
 * applied or whose marker the wallet carries (applied to it, not yet recorded as applied).
 * Returns the wallets that differ, confirmed by re-reading each one alone.
 */
export async function checkLedger(deps: BillingDeps): Promise<LedgerDifference[]> {
  const applied = await deps.store.ledger.sumApplied();
  const pending = groupByAccount(await deps.store.ledger.findPending());
  const suspects: string[] = [];
  const seen = new Set<string>();
  for await (const wallet of deps.store.wallets.all()) {
    seen.add(wallet._id);
    const expected = ledgerTotal(wallet, applied.get(wallet._id) ?? 0n, pending.get(wallet._id) ?? []);
    if (expected !== wallet.balance) suspects.push(wallet._id);
  }
  // Entries applied to a wallet that does not exist (deleted by hand) count against a zero balance.
  for (const [accountId, total] of applied)
    if (!seen.has(accountId) && total !== 0n) suspects.push(accountId);
  const differences: LedgerDifference[] = [];
  for (const accountId of suspects) {
    const difference = await confirmedDifference(deps, accountId);
    if (difference !== null) differences.push(difference);
  }
  return differences;
}

/** One account's difference, if it shows on every one of a few spaced re-reads. */
async function confirmedDifference(deps: BillingDeps, accountId: string): Promise<LedgerDifference | null> {
  let difference: LedgerDifference | null = null;
  for (let read = 0; read < CONFIRMATIONS; read++) {
    if (read > 0) await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_DELAY_MS));
    difference = await accountDifference(deps, accountId);
    if (difference === null) return null;
  }
  return difference;
}

async function accountDifference(deps: BillingDeps, accountId: string): Promise<LedgerDifference | null> {
  const wallet = (await deps.store.wallets.findById(accountId)) ?? {
    _id: accountId,
    balance: 0n,
    version: 0n,
  };
  const applied = (await deps.store.ledger.sumApplied(accountId)).get(accountId) ?? 0n;
  const ledgerMicros = ledgerTotal(wallet, applied, await deps.store.ledger.findPending(accountId));
  return ledgerMicros === wallet.balance ? null : { accountId, balanceMicros: wallet.balance, ledgerMicros };
}

function ledgerTotal(wallet: WalletDoc, applied: bigint, pending: readonly LedgerDoc[]): bigint {
  let total = applied;
  for (const entry of pending) if (wallet.pending?.[markerOf(entry._id)] === true) total += entry.amount;
  return total;
}

function groupByAccount(entries: readonly LedgerDoc[]): Map<string, LedgerDoc[]> {
  const byAccount = new Map<string, LedgerDoc[]>();
  for (const entry of entries) {
    const list = byAccount.get(entry.account_id) ?? [];
    list.push(entry);
    byAccount.set(entry.account_id, list);
  }
  return byAccount;
}
