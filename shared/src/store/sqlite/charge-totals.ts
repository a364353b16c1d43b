import type { ChargeRecord } from '../../billing/money-store.ts';

/** What the charges of one batch add to one wallet. */
export interface WalletTotal {
  readonly accountId: string;
  amountMicros: bigint;
}

/** What they add to one key's month spend, and its newest use. */
export interface KeySpendTotal {
  readonly keyId: string;
  readonly month: string;
  readonly accountId: string;
  costMicros: bigint;
  lastUsedAt: number;
}

/** What they add to one account's usage row of a day and model. */
export interface UsageTotal {
  readonly accountId: string;
  readonly day: string;
  readonly model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: bigint;
}

/**
 * The sums a batch of charges moves, one per wallet, key month and usage row: a batch writes each
 * total row once, however many of its charges share it (most of a busy batch's charges share an
 * account, and many a key and a model), instead of once per charge.
 */
export class ChargeTotals {
  readonly wallets = new Map<string, WalletTotal>();
  readonly keySpends = new Map<string, KeySpendTotal>();
  readonly usage = new Map<string, UsageTotal>();

  add(charge: ChargeRecord): void {
    const wallet = this.wallets.get(charge.accountId);
    if (wallet === undefined)
      this.wallets.set(charge.accountId, { accountId: charge.accountId, amountMicros: -charge.costMicros });
    else wallet.amountMicros -= charge.costMicros;

    const at = charge.createdAt.getTime();
    if (charge.keyId !== null) {
      const spendKey = keySpendKey(charge.keyId, charge.month);
      const spend = this.keySpends.get(spendKey);
      if (spend === undefined)
        this.keySpends.set(spendKey, {
          keyId: charge.keyId,
          month: charge.month,
          accountId: charge.accountId,
          costMicros: charge.costMicros,
          lastUsedAt: at,
        });
      else {
        spend.costMicros += charge.costMicros;
        spend.lastUsedAt = Math.max(spend.lastUsedAt, at);
      }
    }

    const usageKey = `${charge.accountId}\u0000${charge.day}\u0000${charge.model}`;
    const row = this.usage.get(usageKey);
    if (row === undefined)
      this.usage.set(usageKey, {
        accountId: charge.accountId,
        day: charge.day,
        model: charge.model,
        requests: charge.usage.requests,
        inputTokens: charge.usage.inputTokens,
        outputTokens: charge.usage.outputTokens,
        costMicros: charge.costMicros,
      });
    else {
      row.requests += charge.usage.requests;
      row.inputTokens += charge.usage.inputTokens;
      row.outputTokens += charge.usage.outputTokens;
      row.costMicros += charge.costMicros;
    }
  }
}

/** The key of a key's month spend in `ChargeTotals.keySpends`. */
export function keySpendKey(keyId: string, month: string): string {
  return `${keyId}\u0000${month}`;
}
