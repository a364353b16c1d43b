import type { BillingDeps } from './billing-deps.ts';

/** The hold of a request that ends without a charge. */
export interface ReleaseInput {
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string | null;
}

/** Drops a request's hold; nothing is charged. Idempotent, and harmless for an expired hold. */
export async function releaseHold(deps: BillingDeps, input: ReleaseInput): Promise<void> {
  await deps.scripts.settle({
    requestId: input.requestId,
    walletHolds: deps.keys.walletHolds(input.accountId),
    keyHolds: input.keyId === null ? null : deps.keys.keyHolds(input.keyId),
    wallet: null,
    spend: null,
    snapshotTtlMs: deps.settings.snapshotTtlMs,
  });
}
