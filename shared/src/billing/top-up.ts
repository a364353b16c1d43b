import { AppError } from '../errors/app-error.ts';
import type { BillingDeps } from './billing-deps.ts';
import { dayOf, monthOf } from './billing-time.ts';
import type { LedgerEntry } from './money-store.ts';
import { publishSettlements } from './snapshots.ts';

export interface TopUpInput {
  readonly accountId: string;
  readonly amountMicros: bigint;
  readonly reference?: string;
  /** The operator's idempotency key: a replay with the same key credits once. */
  readonly idempotencyKey: string;
}

export interface TopUpResult {
  readonly entry: LedgerEntry;
  readonly balanceMicros: bigint;
  /** False when this key was used before (the first top-up is returned). */
  readonly created: boolean;
}

/** The ledger id of a top-up: keys are per account, and never collide with request ids. */
export function topUpEntryId(accountId: string, idempotencyKey: string): string {
  return `topup:${accountId}:${idempotencyKey}`;
}

/**
 * Credits a wallet through one ledger entry keyed by the idempotency key. A replay returns the first
 * top-up; the same key with another amount or reference is refused (409), never applied.
 */
export async function topUp(deps: BillingDeps, input: TopUpInput): Promise<TopUpResult> {
  if (input.amountMicros <= 0n) throw new RangeError('amountMicros must be > 0');
  if (input.idempotencyKey === '') throw new RangeError('idempotencyKey must not be empty');
  const now = deps.clock();
  const reference = input.reference ?? null;
  const recorded = await deps.store.recordTopUp({
    id: topUpEntryId(input.accountId, input.idempotencyKey),
    accountId: input.accountId,
    amountMicros: input.amountMicros,
    reference,
    day: dayOf(now, deps.settings.timeZone),
    month: monthOf(now, deps.settings.timeZone),
    createdAt: now,
  });
  const { entry, wallet } = recorded;
  if (!recorded.created && (entry.amountMicros !== input.amountMicros || entry.reference !== reference)) {
    throw keyReused();
  }
  // The new balance counts for admission at once (a top-up holds nothing, so no hold is dropped).
  await publishSettlements(deps, [{ outcome: 'recorded', entry, wallet, keySpend: null }]);
  return { entry, balanceMicros: wallet.balance, created: recorded.created };
}

function keyReused(): AppError {
  return new AppError(
    409,
    'invalid_request_error',
    'idempotency_key_reused',
    'This Idempotency-Key was already used for a top-up with another amount or reference.',
  );
}
