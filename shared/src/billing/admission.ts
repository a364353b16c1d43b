import type { BillingDeps } from './billing-deps.ts';
import { monthOf } from './billing-time.ts';
import { loadSpendSnapshot, loadWalletSnapshot } from './snapshots.ts';

/** One request to admit (checks 4–7 of the spec; 1–3 are the caller's). */
export interface AdmitInput {
  /** The hold's id: the request id or the job id that will settle or release it. */
  readonly requestId: string;
  readonly accountId: string;
  readonly keyId: string;
  /** Requests per rate window (the spec's per-minute limit). */
  readonly rateLimit: number;
  readonly monthlyCapMicros: bigint | null;
  /** Check 7, computed by the caller; evaluated after 5 and 6. */
  readonly modelAllowed: boolean;
  /** The hold; 0 for free endpoints, which still pass checks 4–6. */
  readonly estimateMicros: bigint;
  /**
   * The hold is the request's own bound (a stated `max_tokens`, a priced quantity): admitted only
   * when the wallet above its floor and the key's cap can pay all of it. Otherwise (default) the
   * hold is an estimate and the request is admitted while the wallet is above its floor and the key
   * under its cap (docs/money-core.md, "Hold sizing").
   */
  readonly bounded?: boolean;
  /**
   * A hold with a fixed life, which this process does not renew: a video's, owned by its job
   * (settled by the worker, or released when the job fails). Without it the hold is a lease of
   * `HOLD_LEASE_MS` that this process renews until it settles or releases the request.
   */
  readonly holdTtlMs?: number;
  /**
   * False for the second phase of a request that was already counted against the rate limit
   * (e.g. a transcription whose hold is known only once its upload was measured). Default true.
   */
  readonly countRequest?: boolean;
}

/** The rate window as the response headers need it. */
export interface RateWindow {
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
}

export type AdmitResult =
  | ({ readonly outcome: 'admitted' } & RateWindow)
  | ({ readonly outcome: 'rate_limited'; readonly remaining: 0 } & RateWindow)
  | ({ readonly outcome: 'insufficient_quota' | 'spend_limit_reached' | 'model_not_allowed' } & RateWindow);

// A snapshot loaded for a retry could expire again before it; more than this means Redis misbehaves.
const MAX_ATTEMPTS = 3;

/**
 * Checks 4–7 and the hold in one atomic Redis script. Only when a snapshot it needs is missing does
 * it load that from the store and run again (the script answers so before any write).
 */
export async function admit(deps: BillingDeps, input: AdmitInput): Promise<AdmitResult> {
  validate(input);
  const month = monthOf(deps.clock(), deps.settings.timeZone);
  const walletHolds = deps.keys.walletHolds(input.accountId);
  const keyHolds = deps.keys.keyHolds(input.accountId, input.keyId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const reply = await deps.scripts.admit({
      rateWindow: deps.keys.rateWindow(input.accountId, input.keyId),
      walletSnapshot: deps.keys.walletSnapshot(input.accountId),
      spendSnapshot: deps.keys.spendSnapshot(input.accountId, input.keyId, month),
      walletHolds,
      keyHolds,
      args: [
        input.rateLimit,
        deps.settings.rateWindowMs,
        input.requestId,
        input.estimateMicros,
        input.holdTtlMs ?? deps.settings.holdLeaseMs,
        deps.settings.minRequiredMicros,
        input.monthlyCapMicros,
        input.modelAllowed,
        input.countRequest ?? true,
        input.bounded ?? false,
      ],
    });
    if (reply[0] !== 'need_snapshot') {
      const [outcome, limit, remaining, resetMs] = reply;
      if (outcome === 'admitted' && input.estimateMicros > 0n && input.holdTtlMs === undefined) {
        // A lease: renewed by this process while the request lives.
        deps.leases.own({ id: input.requestId, walletHolds, keyHolds });
      }
      return { outcome, limit, remaining, resetMs } as AdmitResult;
    }
    if (reply[1] === 'wallet') await loadWalletSnapshot(deps, input.accountId);
    else await loadSpendSnapshot(deps, input.accountId, input.keyId, month);
  }
  throw new Error(`admission snapshots of account ${input.accountId} could not be loaded`);
}

/**
 * The key's current rate window without counting a request: for the headers of an answer given
 * before check 4 (a refused IP). With no window open, the whole limit remains.
 */
export async function peekRateWindow(
  deps: BillingDeps,
  accountId: string,
  keyId: string,
  rateLimit: number,
): Promise<RateWindow> {
  const [count, resetMs] = await deps.scripts.peekRate(deps.keys.rateWindow(accountId, keyId));
  if (resetMs < 0) return { limit: rateLimit, remaining: rateLimit, resetMs: deps.settings.rateWindowMs };
  return { limit: rateLimit, remaining: Math.max(0, rateLimit - count), resetMs };
}

function validate(input: AdmitInput): void {
  if (!Number.isInteger(input.rateLimit) || input.rateLimit < 1)
    throw new RangeError('rateLimit must be ≥ 1');
  if (input.estimateMicros < 0n) throw new RangeError('estimateMicros must be ≥ 0');
  if (input.monthlyCapMicros !== null && input.monthlyCapMicros < 0n) {
    throw new RangeError('monthlyCapMicros must be ≥ 0');
  }
  const ttl = input.holdTtlMs;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1)) throw new RangeError('holdTtlMs must be ≥ 1');
  if (input.requestId === '') throw new RangeError('requestId must not be empty');
}
