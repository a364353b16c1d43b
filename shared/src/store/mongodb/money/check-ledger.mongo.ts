import type { LedgerDifference } from '../../../billing/money-store.ts';
import type { MoneyCollections } from './guarded-apply.ts';
import type { LedgerDoc } from './ledger.mongo.ts';
import { markerOf } from './pending-marker.ts';
import type { WalletDoc } from './wallets.mongo.ts';

// A difference seen while entries move can be a race of the reads; it counts when it persists.
const CONFIRMATIONS = 2;
const CONFIRMATION_DELAY_MS = 50;

/**
 * The invariant of the money core on MongoDB: every wallet's balance equals the sum of its entries
 * that are applied or whose marker the wallet carries (applied to it, not yet recorded as applied).
 * Without a transaction the reads are not one snapshot, so a suspect wallet is re-read alone a few
 * times and reported only when its difference persists.
 */
export async function checkLedgerMongo(collections: MoneyCollections): Promise<LedgerDifference[]> {
  const applied = await collections.ledger.sumApplied();
  const pending = groupByAccount(await collections.ledger.findPending());
  const suspects: string[] = [];
  const seen = new Set<string>();
  for await (const wallet of collections.wallets.all()) {
    seen.add(wallet._id);
    const expected = ledgerTotal(wallet, applied.get(wallet._id) ?? 0n, pending.get(wallet._id) ?? []);
    if (expected !== wallet.balance) suspects.push(wallet._id);
  }
  // Entries applied to a wallet that does not exist (deleted by hand) count against a zero balance.
  for (const [accountId, total] of applied)
    if (!seen.has(accountId) && total !== 0n) suspects.push(accountId);
  const differences: LedgerDifference[] = [];
  for (const accountId of suspects) {
    const difference = await confirmedDifference(collections, accountId);
    if (difference !== null) differences.push(difference);
  }
  return differences;
}

/** One account's difference, if it shows on every one of a few spaced re-reads. */
async function confirmedDifference(
  collections: MoneyCollections,
  accountId: string,
): Promise<LedgerDifference | null> {
  let difference: LedgerDifference | null = null;
  for (let read = 0; read < CONFIRMATIONS; read++) {
    if (read > 0) await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_DELAY_MS));
    difference = await accountDifference(collections, accountId);
    if (difference === null) return null;
  }
  return difference;
}

async function accountDifference(
  collections: MoneyCollections,
  accountId: string,
): Promise<LedgerDifference | null> {
  const wallet = (await collections.wallets.findById(accountId)) ?? {
    _id: accountId,
    balance: 0n,
    version: 0n,
  };
  const applied = (await collections.ledger.sumApplied(accountId)).get(accountId) ?? 0n;
  const ledgerMicros = ledgerTotal(wallet, applied, await collections.ledger.findPending(accountId));
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
