import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { type AdmitInput, type AdmitResult, admit, peekRateWindow, type RateWindow } from './admission.ts';
import { BackgroundWork } from './background-work.ts';
import type { BillingDeps } from './billing-deps.ts';
import { registerBillingScripts } from './billing-scripts.ts';
import { getBalance } from './get-balance.ts';
import { createKeySpendRepository } from './key-spend.repository.ts';
import { createLedgerRepository, type LedgerEntry, toLedgerEntry } from './ledger.repository.ts';
import { checkLedger, type LedgerDifference } from './ledger-check.ts';
import { listUsage, type UsageRow } from './list-usage.ts';
import { recoverPendingEntries } from './recover-pending-entries.ts';
import { billingKeys } from './redis-keys.ts';
import { type ReleaseInput, releaseHold } from './release-hold.ts';
import { type SettleInput, type SettleResult, settleCharge } from './settle-charge.ts';
import { SettlementBatcher, type SettlementBatchOptions } from './settlement-batcher.ts';
import { type TopUpInput, type TopUpResult, topUp } from './top-up.ts';
import { createUsageDailyRepository } from './usage-daily.repository.ts';
import { createWalletsRepository } from './wallets.repository.ts';

export type {
  AdmitInput,
  AdmitResult,
  LedgerDifference,
  LedgerEntry,
  RateWindow,
  ReleaseInput,
  SettleInput,
  SettleResult,
  TopUpInput,
  TopUpResult,
  UsageRow,
};

/** Every money operation of the service, bound to its stores (docs/money-core.md). */
export interface Billing {
  /** Checks 4–7 and the hold in one Redis round trip (plus a MongoDB load when a snapshot is missing). */
  admit(input: AdmitInput): Promise<AdmitResult>;
  /** The key's rate window without counting a request (headers of answers before check 4). */
  rateWindow(keyId: string, rateLimit: number): Promise<RateWindow>;
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
  /** Writes the deferred settlements and refuses further ones; call before closing the connections. */
  close(): Promise<void>;
  /** Drops the hold; idempotent; nothing is charged. */
  release(input: ReleaseInput): Promise<void>;
  /** Credits the wallet once per idempotency key. */
  topUp(input: TopUpInput): Promise<TopUpResult>;
  /** The wallet balance in µIRT; 0 for an account without wallet. */
  balanceOf(accountId: string): Promise<bigint>;
  /** The account's newest ledger entries first. */
  listLedger(accountId: string, limit: number): Promise<LedgerEntry[]>;
  /** Usage rows of the last `days` billing days, by date then model, cost in Toman. */
  listUsage(accountId: string, days: number, now?: Date): Promise<UsageRow[]>;
  /** Completes entries left open by a crash, created more than `olderThanMs` ago; returns how many. */
  recoverPendingEntries(olderThanMs: number): Promise<number>;
  /** Wallets whose balance differs from their ledger (none when consistent). */
  checkLedger(): Promise<LedgerDifference[]>;
  /** The spec's `min_required`, in µIRT. */
  readonly minRequiredMicros: bigint;
}

export interface BillingOptions {
  readonly db: Db;
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

/** Wires the billing use cases to MongoDB and Redis: one call for the api and the worker. */
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
  return {
    admit: (input) => admit(deps, input),
    rateWindow: (keyId, rateLimit) => peekRateWindow(deps, keyId, rateLimit),
    settle: (input) => settleCharge(deps, input),
    settleDeferred: (input) => batcher.enqueue(input),
    flush: async () => {
      await batcher.flush();
      await deps.background.drain();
    },
    close: async () => {
      await batcher.close();
      await deps.background.drain();
    },
    release: (input) => releaseHold(deps, input),
    topUp: (input) => topUp(deps, input),
    balanceOf: (accountId) => getBalance(deps, accountId),
    listLedger: async (accountId, limit) =>
      (await deps.store.ledger.listByAccount(accountId, limit)).map(toLedgerEntry),
    listUsage: (accountId, days, now) => listUsage(deps, accountId, days, now),
    recoverPendingEntries: (olderThanMs) => recoverPendingEntries(deps, olderThanMs),
    checkLedger: () => checkLedger(deps),
    minRequiredMicros: deps.settings.minRequiredMicros,
  };
}

/** The dependencies of every use case; exported for tests that drive the internal steps. */
export function billingDeps(options: BillingOptions): BillingDeps {
  const { db, config } = options;
  return {
    store: {
      wallets: createWalletsRepository(db),
      ledger: createLedgerRepository(db),
      keySpend: createKeySpendRepository(db),
      usageDaily: createUsageDailyRepository(db),
    },
    scripts: registerBillingScripts(options.redis),
    keys: billingKeys(options.keyPrefix ?? `${config.queues.prefix}:billing:`),
    settings: {
      timeZone: config.billing.timeZone,
      holdTtlMs: config.billing.holdTtlMs,
      // Config keeps Toman as a number; its shortest form is the decimal that was configured.
      minRequiredMicros: config.billing.minRequiredMicros,
      rateWindowMs: options.rateWindowMs ?? 60_000,
      // A snapshot left stale by a failed refresh must not outlive the hold that covers the charge.
      snapshotTtlMs: Math.min(SNAPSHOT_TTL_MS, config.billing.holdTtlMs),
    },
    logger: options.logger.child({ module: 'billing' }),
    clock: options.clock ?? (() => new Date()),
    background: new BackgroundWork(),
  };
}
