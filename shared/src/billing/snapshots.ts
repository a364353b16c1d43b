import type { BillingDeps } from './billing-deps.ts';
import type { SettleCall } from './billing-scripts.ts';
import type { RecordedCharge } from './money-store.ts';

/**
 * Admission reads copies of the wallet and the key's month spend from Redis; the store stays
 * authoritative. A copy is written only over an older version, so a slow writer never puts back a
 * stale balance, and it expires, so a copy missed after a crash is reloaded.
 */

/** Loads the wallet's balance from the store into its snapshot. */
export async function loadWalletSnapshot(deps: BillingDeps, accountId: string): Promise<void> {
  const state = await deps.store.walletState(accountId);
  const write = { key: deps.keys.walletSnapshot(accountId), value: state.balance, version: state.version };
  await deps.scripts.putSnapshot('balance', write, deps.settings.snapshotTtlMs);
}

/** Loads a key's month spend from the store into its snapshot. */
export async function loadSpendSnapshot(
  deps: BillingDeps,
  accountId: string,
  keyId: string,
  month: string,
): Promise<void> {
  const state = await deps.store.keySpendState(accountId, keyId, month);
  const write = {
    key: deps.keys.spendSnapshot(accountId, keyId, month),
    value: state.spent,
    version: state.version,
  };
  await deps.scripts.putSnapshot('spent', write, deps.settings.snapshotTtlMs);
}

/**
 * After entries counted (or were found counted before): drops each request's hold and refreshes the
 * snapshots, in one Redis round trip (one script call per 100 requests). Each wallet and key spend
 * is written once, as the batch left it (counting all its charges), in the first script call that
 * drops one of its holds, so admission may count a charge twice for a moment but never miss it.
 *
 * A failure is only logged: the holds are no longer renewed either way, so they expire within their
 * lease, and the snapshots are reloaded after their TTL (no longer than a lease); the money already
 * moved in the store, so failing the caller would only invite a useless retry.
 */
export async function publishSettlements(
  deps: BillingDeps,
  settled: readonly RecordedCharge[],
): Promise<void> {
  if (settled.length === 0) return;
  try {
    await deps.scripts.settle(
      settled.map((charge) => settleCall(deps, charge)),
      deps.settings.snapshotTtlMs,
    );
  } catch (err) {
    const entryIds = settled.map(({ entry }) => entry.id);
    deps.logger.warn({ err, entryIds }, 'could not publish settlements to Redis; retrying in the background');
    retryPublish(deps, settled, 1);
  } finally {
    // Renewed until the publish dropped them (a charge queued for a batch keeps its hold until then).
    deps.leases.forget(settled.map(({ entry }) => entry.id));
  }
}

/** Whether a recorded charge's hold is this caller's to drop: not while another writer counts it. */
export function holdIsOurs(charge: RecordedCharge): boolean {
  return charge.outcome === 'recorded' || charge.outcome === 'repeat';
}

function settleCall(deps: BillingDeps, { entry, wallet, keySpend }: RecordedCharge): SettleCall {
  return {
    requestId: entry.id,
    walletHolds: deps.keys.walletHolds(entry.accountId),
    keyHolds: entry.keyId === null ? null : deps.keys.keyHolds(entry.accountId, entry.keyId),
    wallet:
      wallet === null
        ? null
        : { key: deps.keys.walletSnapshot(entry.accountId), value: wallet.balance, version: wallet.version },
    spend:
      keySpend === null || entry.keyId === null
        ? null
        : {
            key: deps.keys.spendSnapshot(entry.accountId, entry.keyId, entry.month),
            value: keySpend.spent,
            version: keySpend.version,
          },
  };
}

/** How often, and how many times, a publish that met a Redis outage is tried again. */
const PUBLISH_RETRY_MS = 5_000;
const PUBLISH_RETRIES = 24;

/**
 * A hold whose charge counted must not outlive it: a lease would lapse within a minute anyway, but a
 * video's hold was given a life of its deadline plus a margin, so a publish lost to a Redis outage
 * is tried again for two minutes (the money already moved; only the hold and snapshots wait).
 */
function retryPublish(deps: BillingDeps, settled: readonly RecordedCharge[], attempt: number): void {
  if (attempt > PUBLISH_RETRIES) {
    const entryIds = settled.map(({ entry }) => entry.id);
    deps.logger.error({ entryIds }, 'gave up publishing settlements; their holds expire on their own');
    return;
  }
  const timer = setTimeout(() => {
    const calls = settled.map((charge) => settleCall(deps, charge));
    deps.scripts.settle(calls, deps.settings.snapshotTtlMs).then(
      () => deps.logger.info({ entries: settled.length }, 'published settlements after a Redis outage'),
      () => retryPublish(deps, settled, attempt + 1),
    );
  }, PUBLISH_RETRY_MS);
  timer.unref();
}
