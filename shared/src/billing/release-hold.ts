import type { BillingDeps } from './billing-deps.ts';

/** The hold of a request that ends without a charge. */
export interface ReleaseInput {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string | null;
}

/** Drops a request's hold; nothing is charged. Idempotent, and harmless for an expired hold. */
export async function releaseHold(deps: BillingDeps, input: ReleaseInput): Promise<void> {
  // No longer renewed, first: should the script fail, the hold is gone within its lease.
  deps.leases.forget([input.requestId]);
  const call = {
    requestId: input.requestId,
    walletHolds: deps.keys.walletHolds(input.accountId),
    keyHolds: input.keyId === null ? null : deps.keys.keyHolds(input.accountId, input.keyId),
    wallet: null,
    spend: null,
  };
  await deps.scripts.settle([call], deps.settings.snapshotTtlMs);
}

/** A job's hold to put back after Redis lost it (its amount is on the job document). */
export interface RestoreHoldInput {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly amountMicros: bigint;
  /** How long it lives from now (a fixed life: a video's, until its deadline plus a margin). */
  readonly ttlMs: number;
}

/**
 * Adds a job's hold back unless it is there (after Redis lost its data, a video still rendering
 * would otherwise be counted by admission only once charged). True when it added it.
 */
export async function restoreHold(deps: BillingDeps, input: RestoreHoldInput): Promise<boolean> {
  if (input.amountMicros <= 0n) return false;
  return deps.scripts.restoreHold({
    requestId: input.requestId,
    walletHolds: deps.keys.walletHolds(input.accountId),
    keyHolds: deps.keys.keyHolds(input.accountId, input.keyId),
    amount: input.amountMicros,
    ttlMs: Math.max(1, Math.round(input.ttlMs)),
  });
}

/** A leased hold handed to a job that outlives the request (a video). */
export interface TransferHoldInput {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  /** Its life from now on, not renewed (a video's: until its deadline plus a margin). */
  readonly ttlMs: number;
}

/**
 * Turns a hold this process leases into a fixed-life hold owned by its job: its expiry becomes now
 * + `ttlMs` (never earlier than it was), and this process stops renewing it. Throws when Redis
 * could not be told; the hold then stays this process's lease.
 */
export async function transferHold(deps: BillingDeps, input: TransferHoldInput): Promise<void> {
  const ttlMs = Math.max(1, Math.round(input.ttlMs));
  const ids = [input.requestId];
  await deps.scripts.renewHolds(
    [
      { holds: deps.keys.walletHolds(input.accountId), ids },
      { holds: deps.keys.keyHolds(input.accountId, input.keyId), ids },
    ],
    ttlMs,
  );
  deps.leases.forget(ids);
}
