import { AppError } from '../errors/app-error.ts';
import type { BillingDeps } from './billing-deps.ts';
import { dayOf, monthOf } from './billing-time.ts';
import { commitEntry, LEASE_MS } from './guarded-apply.ts';
import { type LedgerDoc, type LedgerEntry, toLedgerEntry } from './ledger.repository.ts';
import { resumeIfAbandoned } from './recover-pending-entries.ts';
import { publishSettlement } from './snapshots.ts';

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
  const doc = topUpDoc(input, deps.clock(), deps.settings.timeZone);
  if (await deps.store.ledger.insertPending(doc)) {
    const applied = await commitEntry(deps.store, doc);
    await publishSettlement(deps, doc, applied);
    const balanceMicros =
      applied.wallet?.balance ?? (await deps.store.wallets.findState(input.accountId)).balance;
    return { entry: toLedgerEntry({ ...doc, state: 'applied', open: false }), balanceMicros, created: true };
  }
  const existing = await deps.store.ledger.findById(doc._id);
  if (existing === null) throw new Error(`ledger entry ${doc._id} vanished`);
  if (existing.amount !== doc.amount || existing.reference !== doc.reference) throw keyReused();
  const resumed = await resumeIfAbandoned(deps, existing);
  if (resumed !== null) await publishSettlement(deps, existing, resumed);
  const current = (await deps.store.ledger.findById(doc._id)) ?? existing;
  const balanceMicros = (await deps.store.wallets.findState(input.accountId)).balance;
  return { entry: toLedgerEntry(current), balanceMicros, created: false };
}

function topUpDoc(input: TopUpInput, now: Date, timeZone: string): LedgerDoc {
  return {
    _id: topUpEntryId(input.accountId, input.idempotencyKey),
    account_id: input.accountId,
    key_id: null,
    kind: 'topup',
    amount: input.amountMicros,
    model: null,
    usage: null,
    day: dayOf(now, timeZone),
    month: monthOf(now, timeZone),
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + LEASE_MS),
    created_at: now,
    reference: input.reference ?? null,
  };
}

function keyReused(): AppError {
  return new AppError(
    409,
    'invalid_request_error',
    'idempotency_key_reused',
    'This Idempotency-Key was already used for a top-up with another amount or reference.',
  );
}
