import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { tracedSettlement } from '../observability/settlement-observation.ts';
import { type AdmitInput, type AdmitResult, admit, peekRateWindow, type RateWindow } from './admission.ts';
import type { BillingDeps } from './billing-deps.ts';
import { registerBillingScripts } from './billing-scripts.ts';
import { getBalance } from './get-balance.ts';
import { type Calibration, HoldCalibration } from './hold-calibration.ts';
import { HoldLeases } from './hold-lease.ts';
import { listUsage, type UsageRow } from './list-usage.ts';
import type { LedgerDifference, LedgerEntry, LedgerQuery, MoneyStore } from './money-store.ts';
import { billingKeys } from './redis-keys.ts';
import {
  type ReleaseInput,
  type RestoreHoldInput,
  releaseHold,
  restoreHold,
  type TransferHoldInput,
  transferHold,
} from './release-hold.ts';
import { type SettleInput, type SettleResult, settleCharge } from './settle-charge.ts';
import { SettlementBatcher, type SettlementBatchOptions } from './settlement-batcher.ts';
import { publishSettlements } from './snapshots.ts';
import { type TopUpInput, type TopUpResult, topUp } from './top-up.ts';

export type {
  AdmitInput,
  AdmitResult,
  LedgerDifference,
  LedgerEntry,
  LedgerQuery,
  RateWindow,
  ReleaseInput,
  RestoreHoldInput,
  SettleInput,
  SettleResult,
  TopUpInput,
  TopUpResult,
  TransferHoldInput,
  UsageRow,
};

/** Every money operation of the service, bound to its stores (docs/money-core.md). */
export interface Billing {
  /** Checks 4–7 and the hold in one Redis round trip (plus a store read when a snapshot is missing). */
  admit(input: AdmitInput): Promise<AdmitResult>;
  /** The key's rate window without counting a request (headers of answers before check 4). */
  rateWindow(accountId: string, keyId: string, rateLimit: number): Promise<RateWindow>;
  /** Replaces the hold by the actual cost, exactly once per `requestId`. Safe to call twice. */
  settle(input: SettleInput): Promise<SettleResult>;
  /**
   * `settle`, written later with others in one batch (group commit): returns at once; the hold stays
   * until the charge counts (within `flushMs`, or at `flush`/`close`). Throws on invalid input and
   * after `close`. A deferred and a direct settlement of one id charge once.
   */
  settleDeferred(input: SettleInput): Promise<void>;
  /** Resolves once every deferred settlement queued before the call is written. */
  flush(): Promise<void>;
  /**
   * Writes the deferred settlements, refuses further ones and stops renewing hold leases; call
   * before closing the connections.
   */
  close(): Promise<void>;
  /** Drops the hold; idempotent; nothing is charged. */
  release(input: ReleaseInput): Promise<void>;
  /**
   * Puts a job's hold back unless it is there (the reconciler, after Redis lost a rendering video's
   * hold); true when it added it. A fixed-life hold: not renewed by this process.
   */
  restoreHold(input: RestoreHoldInput): Promise<boolean>;
  /**
   * Hands a hold this process leases to a job that outlives the request (a video answered 202):
   * a fixed life of `ttlMs` from now, no longer renewed here. Throws when Redis could not be told
   * (the hold then stays this process's lease).
   */
  transferHold(input: TransferHoldInput): Promise<void>;
  /**
   * Renews, now, the lease of every hold this process owns (a background loop does it every third
   * of `HOLD_LEASE_MS`); resolves once done, never rejects.
   */
  renewHolds(): Promise<void>;
  /** Credits the wallet once per idempotency key. */
  topUp(input: TopUpInput): Promise<TopUpResult>;
  /** The wallet balance in µIRT; 0 for an account without wallet. */
  balanceOf(accountId: string): Promise<bigint>;
  /** The account's ledger entries, newest first, a page at a time. */
  listLedger(accountId: string, query: LedgerQuery): Promise<LedgerEntry[]>;
  /** Usage rows of the last `days` billing days, by date then model, cost in Toman. */
  listUsage(accountId: string, days: number, now?: Date): Promise<UsageRow[]>;
  /** Completes entries left open by a crash, created more than `olderThanMs` ago; returns how many. */
  recoverPendingEntries(olderThanMs: number): Promise<number>;
  /** Wallets whose balance differs from their ledger (none when consistent). */
  checkLedger(): Promise<LedgerDifference[]>;
  /** The spec's `min_required`, in µIRT. */
  readonly minRequiredMicros: bigint;
  /**
   * What this process's settled answers used, per model: token holds of later requests are sized
   * from it (docs/money-core.md, "Hold sizing"). Fed by every settlement that carries a `basis`.
   */
  readonly calibration: Calibration;
}

export interface BillingOptions {
  /** The money aggregate of the store (SQLite or MongoDB). */
  readonly money: MoneyStore;
  /** A command connection (not a BullMQ blocking one); the billing Lua commands are defined on it. */
  readonly redis: Redis;
  readonly config: Config;
  readonly logger: Logger;
  readonly clock?: () => Date;
  /** Prefix of the billing keys in Redis; default `<QUEUE_PREFIX>:billing:`. */
  readonly keyPrefix?: string;
  /** Rate window length; the spec's 60 000 ms unless a test needs a short one. */
  readonly rateWindowMs?: number;
  /** When deferred settlements are written; defaults: every `SETTLEMENT_FLUSH_MS` (50 ms), in batches of at most 250. */
  readonly settleBatch?: SettlementBatchOptions;
}

const SNAPSHOT_TTL_MS = 10 * 60 * 1000;

/** Wires the billing use cases to the money store and Redis: one call for the api and the worker. */
export function createBilling(options: BillingOptions): Billing {
  return billingOver(billingDeps(options), options);
}

/**
 * The use cases over given dependencies (tests that also drive the internal steps share them, so
 * `flush` waits for the work those steps leave behind too).
 */
export function billingOver(
  deps: BillingDeps,
  options: Pick<BillingOptions, 'config' | 'settleBatch'>,
): Billing {
  const batcher = new SettlementBatcher(deps, {
    flushMs: options.config.billing.settlementFlushMs,
    ...options.settleBatch,
  });
  // One renewal loop per process (per billing instance); it never keeps the process alive.
  deps.leases.start();
  // The settlement steps, bound once (each settlement runs in a span when the process traces).
  const settleNow = (input: SettleInput) => settleCharge(deps, input);
  const enqueue = (input: SettleInput) => batcher.enqueue(input);
  const calibration = new HoldCalibration();
  const learn = (input: SettleInput) => {
    if (input.basis !== undefined) calibration.observe(input.basis, input.usage);
  };
  return {
    admit: (input) => admit(deps, input),
    rateWindow: (accountId, keyId, rateLimit) => peekRateWindow(deps, accountId, keyId, rateLimit),
    settle: async (input) => {
      learn(input);
      try {
        return await tracedSettlement(input, 'direct', settleNow);
      } finally {
        // Dropped by its publish already when this settlement counted it; otherwise another writer
        // counts it and drops the hold, which stays renewed until then (bounded).
        deps.leases.handOver(input.requestId);
      }
    },
    settleDeferred: (input) => {
      learn(input);
      return tracedSettlement(input, 'deferred', enqueue);
    },
    flush: () => batcher.flush(),
    close: async () => {
      try {
        await batcher.close();
      } finally {
        await deps.leases.stop();
      }
    },
    release: (input) => releaseHold(deps, input),
    restoreHold: (input) => restoreHold(deps, input),
    transferHold: (input) => transferHold(deps, input),
    renewHolds: () => deps.leases.renew(),
    topUp: (input) => topUp(deps, input),
    balanceOf: (accountId) => getBalance(deps, accountId),
    listLedger: (accountId, query) => deps.store.listLedger(accountId, query),
    listUsage: (accountId, days, now) => listUsage(deps, accountId, days, now),
    recoverPendingEntries: async (olderThanMs) => {
      const olderThan = new Date(deps.clock().getTime() - olderThanMs);
      const recovered = await deps.store.recoverEntries(olderThan);
      await publishSettlements(deps, recovered);
      return recovered.length;
    },
    checkLedger: () => deps.store.checkLedger(),
    minRequiredMicros: deps.settings.minRequiredMicros,
    calibration,
  };
}

/** The dependencies of every use case; exported for tests that drive the internal steps. */
export function billingDeps(options: BillingOptions): BillingDeps {
  const { config } = options;
  const scripts = registerBillingScripts(options.redis);
  const logger = options.logger.child({ module: 'billing' });
  return {
    store: options.money,
    scripts,
    keys: billingKeys(options.keyPrefix ?? `${config.queues.prefix}:billing:`),
    settings: {
      timeZone: config.billing.timeZone,
      holdLeaseMs: config.billing.holdLeaseMs,
      // Config keeps Toman as a number; its shortest form is the decimal that was configured.
      minRequiredMicros: config.billing.minRequiredMicros,
      rateWindowMs: options.rateWindowMs ?? 60_000,
      // A snapshot left stale by a failed refresh must not outlive the hold that covers the charge
      // (no longer renewed once its settlement ran: gone within a lease).
      snapshotTtlMs: Math.min(SNAPSHOT_TTL_MS, config.billing.holdLeaseMs),
    },
    leases: new HoldLeases(scripts, { leaseMs: config.billing.holdLeaseMs, logger }),
    logger,
    clock: options.clock ?? (() => new Date()),
  };
}
