import type { Redis } from 'ioredis';
import { ADMIT_LUA, PEEK_RATE_LUA, PUT_SNAPSHOT_LUA, SETTLE_LUA } from './admission-scripts.ts';
import type { HoldKeys } from './redis-keys.ts';

/** What the admission script answers (see ADMIT_LUA). */
export type AdmitReply =
  | readonly ['need_snapshot', 'wallet' | 'spend']
  | readonly [
      'admitted' | 'rate_limited' | 'insufficient_quota' | 'spend_limit_reached' | 'model_not_allowed',
      number,
      number,
      number,
    ];

export interface AdmitCall {
  readonly rateWindow: string;
  readonly walletSnapshot: string;
  readonly spendSnapshot: string;
  readonly walletHolds: HoldKeys;
  readonly keyHolds: HoldKeys;
  readonly args: readonly [
    limit: number,
    windowMs: number,
    requestId: string,
    estimate: bigint,
    holdTtlMs: number,
    minRequired: bigint,
    cap: bigint | null,
    modelAllowed: boolean,
    countRequest: boolean,
  ];
}

/** A snapshot to write unless a newer one is present. */
export interface SnapshotWrite {
  readonly key: string;
  readonly value: bigint;
  readonly version: bigint;
}

export interface SettleCall {
  readonly requestId: string;
  readonly walletHolds: HoldKeys;
  /** Null for a charge without a key. */
  readonly keyHolds: HoldKeys | null;
  readonly wallet: SnapshotWrite | null;
  readonly spend: SnapshotWrite | null;
  readonly snapshotTtlMs: number;
}

/** The billing Lua commands on one ioredis connection, typed. */
export interface BillingScripts {
  admit(call: AdmitCall): Promise<AdmitReply>;
  settle(call: SettleCall): Promise<void>;
  /** `settle` of many requests in one pipeline (one round trip); each call stays atomic on its own. */
  settleMany(calls: readonly SettleCall[]): Promise<void>;
  putSnapshot(field: 'balance' | 'spent', write: SnapshotWrite, ttlMs: number): Promise<void>;
  /** Requests counted in a rate window and its remaining ms (negative when no window is open). */
  peekRate(rateWindowKey: string): Promise<readonly [count: number, resetMs: number]>;
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/** KEYS and ARGV of SETTLE_LUA. */
function settleArguments(call: SettleCall): string[] {
  const keyHolds = call.keyHolds ?? call.walletHolds;
  const keys = [call.walletHolds.expiries, call.walletHolds.amounts, keyHolds.expiries, keyHolds.amounts];
  keys.push(call.wallet?.key ?? call.walletHolds.amounts, call.spend?.key ?? call.walletHolds.amounts);
  const snapshot = (write: SnapshotWrite | null) =>
    write === null ? ['', ''] : [String(write.value), String(write.version)];
  const args = [call.requestId, call.keyHolds === null ? '0' : '1'];
  args.push(...snapshot(call.wallet), ...snapshot(call.spend), String(call.snapshotTtlMs));
  return [...keys, ...args];
}

/** Registers the commands (EVALSHA with a fallback to EVAL, by ioredis) and wraps them. */
export function registerBillingScripts(redis: Redis): BillingScripts {
  redis.defineCommand('billingAdmit', { numberOfKeys: 7, lua: ADMIT_LUA });
  redis.defineCommand('billingSettle', { numberOfKeys: 6, lua: SETTLE_LUA });
  redis.defineCommand('billingPutSnapshot', { numberOfKeys: 1, lua: PUT_SNAPSHOT_LUA });
  redis.defineCommand('billingPeekRate', { numberOfKeys: 1, lua: PEEK_RATE_LUA });
  const command = (name: string) =>
    (redis as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
  const admit = command('billingAdmit').bind(redis);
  const settle = command('billingSettle').bind(redis);
  const putSnapshot = command('billingPutSnapshot').bind(redis);
  const peekRate = command('billingPeekRate').bind(redis);
  return {
    async admit(call) {
      const [limit, windowMs, requestId, estimate, holdTtlMs, minRequired, cap, modelAllowed, count] =
        call.args;
      const keys = [call.rateWindow, call.walletSnapshot, call.spendSnapshot];
      keys.push(call.walletHolds.expiries, call.walletHolds.amounts);
      keys.push(call.keyHolds.expiries, call.keyHolds.amounts);
      const args = [limit, windowMs, requestId, String(estimate), holdTtlMs, String(minRequired)];
      args.push(cap === null ? '' : String(cap), modelAllowed ? '1' : '0', count ? '1' : '0');
      return (await admit(...keys, ...args)) as AdmitReply;
    },
    async settle(call) {
      await settle(...settleArguments(call));
    },
    async settleMany(calls) {
      const pipeline = redis.pipeline();
      const queue = (pipeline as unknown as Record<string, ScriptCommand>).billingSettle as ScriptCommand;
      for (const call of calls) queue.apply(pipeline, settleArguments(call));
      const failures = ((await pipeline.exec()) ?? []).filter(([error]) => error !== null);
      if (failures.length > 0) {
        const cause = failures[0]?.[0];
        throw new Error(`${failures.length} of ${calls.length} settle calls failed`, { cause });
      }
    },
    async putSnapshot(field, write, ttlMs) {
      await putSnapshot(write.key, field, String(write.value), String(write.version), ttlMs);
    },
    async peekRate(rateWindowKey) {
      return (await peekRate(rateWindowKey)) as [number, number];
    },
  };
}
