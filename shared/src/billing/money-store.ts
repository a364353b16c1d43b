/**
 * The money aggregate's store contract: wallets, the ledger, each key's month spend and the daily
 * usage rows, and the writes that move money through all of them together. The rules (what a charge
 * costs, its billing day and month, holds, admission) live above it in the billing use cases; an
 * implementation only records what it is given, each entry exactly once by its id.
 *
 * Two implementations: SQLite (one transaction per batch of charges or per top-up) and MongoDB
 * (a re-drivable two-phase commit keyed by the entry id, completed by `recoverEntries` after a crash).
 * One contract test suite runs against both (test/integration/shared/store/).
 */

export type LedgerKind = 'charge' | 'topup' | 'adjustment';

/** `pending`: recorded, not yet counted in every target (MongoDB only, between two steps); `applied`: counted. */
export type LedgerState = 'pending' | 'applied';

/** One movement of money; `id` is its idempotency key (request id, job id, top-up id). */
export interface LedgerEntry {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string | null;
  readonly kind: LedgerKind;
  /** µIRT, signed: charges are negative, top-ups positive. */
  readonly amountMicros: bigint;
  readonly model: string | null;
  readonly usage: {
    readonly requests: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
  } | null;
  /** Billing day (`YYYY-MM-DD`) and month (`YYYY-MM`) it counts in, in the billing zone. */
  readonly day: string;
  readonly month: string;
  readonly state: LedgerState;
  readonly reference: string | null;
  readonly createdAt: Date;
}

/** A wallet's balance and a version that grows with every change of it (admission snapshots). */
export interface WalletState {
  readonly balance: bigint;
  readonly version: bigint;
}

/** A key's spend in one billing month and a version that grows with every change of it. */
export interface KeySpendState {
  readonly spent: bigint;
  readonly version: bigint;
}

/** What a key spent in one billing month, and when it was last charged (in any month). */
export interface KeySpendSummary {
  readonly keyId: string;
  readonly spentMicros: bigint;
  /** The newest `createdAt` of the key's charges (when the request was served); null if none. */
  readonly lastUsedAt: Date | null;
}

/** A charge to record: computed by the billing use cases, recorded as given. */
export interface ChargeRecord {
  /** The ledger entry id: recording one id twice charges once. */
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string | null;
  readonly model: string;
  /** µIRT, ≥ 0. */
  readonly costMicros: bigint;
  readonly usage: { readonly requests: number; readonly inputTokens: number; readonly outputTokens: number };
  readonly day: string;
  readonly month: string;
  readonly createdAt: Date;
}

/**
 * What recording a charge did:
 * - `recorded`: this call counted it;
 * - `repeat`: an entry with this id was counted before (`entry` is that first one);
 * - `in_progress`: an entry with this id is being counted by another writer right now (a store
 *   without multi-document transactions), who drops its hold once it counts;
 * - `deferred`: recorded but not counted yet; the store's `recoverEntries` counts it later.
 */
export type ChargeOutcome = 'recorded' | 'repeat' | 'in_progress' | 'deferred';

export interface RecordedCharge {
  readonly outcome: ChargeOutcome;
  readonly entry: LedgerEntry;
  /** The wallet after the entry counted (`recorded`, or recovered), else null. */
  readonly wallet: WalletState | null;
  /** The entry's key month spend after it counted (a charge with a key), else null. */
  readonly keySpend: KeySpendState | null;
}

/** A top-up to record. */
export interface TopUpRecord {
  readonly id: string;
  readonly accountId: string;
  /** µIRT, > 0. */
  readonly amountMicros: bigint;
  readonly reference: string | null;
  readonly day: string;
  readonly month: string;
  readonly createdAt: Date;
}

export interface RecordedTopUp {
  /** False when an entry with this id existed already; `entry` is then that first one. */
  readonly created: boolean;
  readonly entry: LedgerEntry;
  /** The wallet after the call (after the first top-up, on a repeat). */
  readonly wallet: WalletState;
}

/** One account's usage of one model on one billing day. */
export interface UsageRecord {
  readonly date: string;
  readonly model: string;
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costMicros: bigint;
}

/** Where a page of the ledger starts: strictly older than this entry (newest first). */
export interface LedgerCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface LedgerQuery {
  readonly limit: number;
  readonly before?: LedgerCursor;
  readonly kind?: LedgerKind;
}

/** A wallet whose balance is not what its ledger entries add up to. */
export interface LedgerDifference {
  readonly accountId: string;
  readonly balanceMicros: bigint;
  readonly ledgerMicros: bigint;
}

export interface MoneyStore {
  /**
   * Records charges (distinct ids), each exactly once by id: its ledger entry, the wallet, the key's
   * month spend and the day's usage row move together. One result per charge, in order. Throws only
   * when nothing of the call was counted, so the caller may retry it whole.
   */
  recordCharges(charges: readonly ChargeRecord[]): Promise<RecordedCharge[]>;
  /** Credits a wallet exactly once per id (ledger entry and balance together). */
  recordTopUp(topUp: TopUpRecord): Promise<RecordedTopUp>;
  /** An account without a wallet has 0 at version 0. */
  walletState(accountId: string): Promise<WalletState>;
  /**
   * A key without spend in that month has 0 (at version 0 when its account spent nothing that
   * month; MongoDB keeps one version per account and month, shared by its keys).
   */
  keySpendState(accountId: string, keyId: string, month: string): Promise<KeySpendState>;
  /**
   * For each key of the account named in `keyIds`, in that order: its spend in `month` (0 without
   * charges then) and its last use. Kept by the writes that record charges, so serving a request
   * writes nothing more for it.
   */
  keySpendsOf(accountId: string, keyIds: readonly string[], month: string): Promise<KeySpendSummary[]>;
  findEntry(id: string): Promise<LedgerEntry | null>;
  /** The account's entries, newest first (by creation time, then id), a page at a time. */
  listLedger(accountId: string, query: LedgerQuery): Promise<LedgerEntry[]>;
  /** The account's usage rows of the days `fromDay` to `toDay` (inclusive), by date then model. */
  listUsage(accountId: string, fromDay: string, toDay: string): Promise<UsageRecord[]>;
  /**
   * Counts entries that a crash left recorded but not counted, recorded before `olderThan`; returns
   * those it counted now. A store that counts in one transaction has none. Safe on every replica
   * at once.
   */
  recoverEntries(olderThan: Date): Promise<RecordedCharge[]>;
  /** Wallets whose balance differs from the sum of their counted entries (none when consistent). */
  checkLedger(): Promise<LedgerDifference[]>;
}
