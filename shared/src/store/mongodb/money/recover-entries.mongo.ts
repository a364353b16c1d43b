import type { KeySpendState, RecordedCharge, WalletState } from '../../../billing/money-store.ts';
import type { Logger } from '../../../logging/logger.ts';
import {
  type AppliedTargets,
  commitEntry,
  finishEntry,
  LEASE_MS,
  type MoneyCollections,
} from './guarded-apply.ts';
import { keySpendOf, noteKeyUses } from './key-spend.mongo.ts';
import { type LedgerDoc, toLedgerEntry } from './ledger.mongo.ts';

/** The targets' state after an entry counted, as the money contract reports it. */
export interface CountedState {
  readonly wallet: WalletState | null;
  readonly keySpend: KeySpendState | null;
}

/** The contract's view of the targets an entry was applied to. */
export function countedState(entry: LedgerDoc, applied: AppliedTargets): CountedState {
  const { wallet, keySpend } = applied;
  return {
    wallet: wallet === null ? null : { balance: wallet.balance, version: wallet.version },
    keySpend: keySpend === null || entry.key_id === null ? null : keySpendOf(keySpend, entry.key_id),
  };
}

/**
 * Completes ledger entries left open by a crash, created before `olderThan`: pending ones are
 * claimed (their driver's lease ran out) and applied; applied ones get their markers cleared.
 * Returns the entries it counted now. Safe on every replica at once: a claim is a conditional update.
 */
export async function recoverEntriesMongo(
  collections: MoneyCollections,
  olderThan: Date,
  now: Date,
  logger: Logger,
): Promise<RecordedCharge[]> {
  const recovered: RecordedCharge[] = [];
  for await (const entry of collections.ledger.findOpen(olderThan)) {
    try {
      if (entry.state === 'applied') {
        await finishEntry(collections, entry);
        continue;
      }
      const counted = await resumeIfAbandoned(collections, entry, now, logger);
      if (counted !== null) {
        recovered.push({
          outcome: 'recorded',
          entry: toLedgerEntry({ ...entry, state: 'applied' }),
          ...counted,
        });
      }
    } catch (err) {
      // One entry's failure must not block the others; it stays open for the next run.
      logger.error({ err, entryId: entry._id }, 'could not recover a ledger entry');
    }
  }
  return recovered;
}

/**
 * Finishes a pending entry whose driver's lease ran out (it crashed); leaves alone an entry that is
 * applied, or that its driver is still applying (applying it here as well could count it twice).
 */
export async function resumeIfAbandoned(
  collections: MoneyCollections,
  entry: LedgerDoc,
  now: Date,
  logger: Logger,
): Promise<CountedState | null> {
  if (entry.state !== 'pending') return null;
  const claimed = await collections.ledger.claim(entry._id, now, new Date(now.getTime() + LEASE_MS));
  if (claimed === null) return null;
  logger.warn({ entryId: entry._id, kind: entry.kind }, 'completing an abandoned ledger entry');
  const counted = countedState(claimed, await commitEntry(collections, claimed));
  await noteKeyUses(collections.keySpend, [claimed], logger);
  return counted;
}
