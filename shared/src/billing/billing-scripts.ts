import type { Redis } from 'ioredis';
import { groupBySlot } from '../redis/hash-tags.ts';
import { isCluster } from '../redis/redis.ts';
import {
  ADMIT_KEYS_PER_CALL,
  ADMIT_LUA,
  PEEK_RATE_LUA,
  PUT_SNAPSHOT_LUA,
  RENEW_HOLDS_LUA,
  RESTORE_HOLD_LUA,
  SETTLE_LUA,
} from './admission-scripts.ts';
import { createAdmitBatcher, MAX_ADMIT_BATCH } from './admit-batcher.ts';
import { type HoldKeys, type HoldSet, holdSetsOf } from './redis-keys.ts';

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
    bounded: boolean,
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
}

/** A hold to put back when Redis lost it (RESTORE_HOLD_LUA). */
export interface RestoreCall {
  readonly requestId: string;
  readonly walletHolds: HoldKeys;
  readonly keyHolds: HoldKeys;
  readonly amount: bigint;
  readonly ttlMs: number;
}

/** Holds renewed by one script call at most; more go in further calls of the same pipeline. */
const RENEW_CHUNK = 500;
/** Requests settled by one script call at most (each call blocks Redis for its length). */
const SETTLE_CHUNK = 100;

/** The billing Lua commands on one ioredis connection, typed. */
export interface BillingScripts {
  /** One admission; those made in the same turn of the event loop share a script call (admit-batcher.ts). */
  admit(call: AdmitCall): Promise<AdmitReply>;
  /**
   * Drops the holds of settled requests and writes their snapshots, in one round trip (none for no
   * request): up to SETTLE_CHUNK requests per script call (each call atomic), in one pipeline.
   */
  settle(calls: readonly SettleCall[], snapshotTtlMs: number): Promise<void>;
  putSnapshot(field: 'balance' | 'spent', write: SnapshotWrite, ttlMs: number): Promise<void>;
  /** Requests counted in a rate window and its remaining ms (negative when no window is open). */
  peekRate(rateWindowKey: string): Promise<readonly [count: number, resetMs: number]>;
  /**
   * Extends the leases of the given holds to now + `leaseMs` in one pipeline (one round trip);
   * resolves to the ids that were no longer held.
   */
  renewHolds(sets: readonly HoldSet[], leaseMs: number): Promise<string[]>;
  /** Adds a hold unless it is there; true when it added it. */
  restoreHold(call: RestoreCall): Promise<boolean>;
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Registers the commands (EVALSHA with a fallback to EVAL, by ioredis) and wraps them. On a
 * Cluster, each script call and each pipeline holds the keys of one account only (one hash tag,
 * redis-keys.ts): admissions are batched per account, settlements and renewals grouped per account,
 * and the calls of different accounts leave side by side instead of in one pipeline.
 */
export function registerBillingScripts(redis: Redis): BillingScripts {
  const clustered = isCluster(redis);
  // Variable key count: the admissions of a batch, ADMIT_KEYS_PER_CALL keys each.
  redis.defineCommand('billingAdmit', { lua: ADMIT_LUA });
  // Variable key count: the first argument says how many keys follow.
  redis.defineCommand('billingSettle', { lua: SETTLE_LUA });
  redis.defineCommand('billingPutSnapshot', { numberOfKeys: 1, lua: PUT_SNAPSHOT_LUA });
  redis.defineCommand('billingPeekRate', { numberOfKeys: 1, lua: PEEK_RATE_LUA });
  redis.defineCommand('billingRenewHolds', { lua: RENEW_HOLDS_LUA });
  redis.defineCommand('billingRestoreHold', { numberOfKeys: 4, lua: RESTORE_HOLD_LUA });
  const command = (name: string) =>
    (redis as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
  const admit = command('billingAdmit').bind(redis);
  const putSnapshot = command('billingPutSnapshot').bind(redis);
  const peekRate = command('billingPeekRate').bind(redis);
  const restoreHold = command('billingRestoreHold').bind(redis);
  return {
    admit: createAdmitBatcher(
      async (calls) => (await admit(...admitArguments(calls))) as unknown[],
      MAX_ADMIT_BATCH,
      clustered ? (call) => call.walletSnapshot : undefined,
    ),
    async settle(calls, snapshotTtlMs) {
      const scriptCalls: (string | number)[][] = [];
      const groups = clustered ? groupBySlot(calls, (call) => call.walletHolds.expiries) : [calls];
      for (const group of groups) {
        for (let from = 0; from < group.length; from += SETTLE_CHUNK)
          scriptCalls.push(settleArguments(group.slice(from, from + SETTLE_CHUNK), snapshotTtlMs));
      }
      await pipelined(redis, 'billingSettle', scriptCalls, clustered);
    },
    async putSnapshot(field, write, ttlMs) {
      await putSnapshot(write.key, field, String(write.value), String(write.version), ttlMs);
    },
    async peekRate(rateWindowKey) {
      return (await peekRate(rateWindowKey)) as [number, number];
    },
    async renewHolds(sets, leaseMs) {
      const groups = clustered ? groupBySlot(sets, (set) => set.holds.expiries) : [sets];
      const calls = groups.flatMap((group) => renewCalls(group, leaseMs));
      const replies = await pipelined(redis, 'billingRenewHolds', calls, clustered);
      return replies.flatMap((reply) => reply as string[]);
    },
    async restoreHold(call) {
      const keys = [call.walletHolds.expiries, call.walletHolds.amounts];
      keys.push(call.keyHolds.expiries, call.keyHolds.amounts);
      return (await restoreHold(...keys, call.requestId, String(call.amount), call.ttlMs)) === 1;
    },
  };
}

/**
 * Runs the command once for each argument list, in one pipeline (one round trip); resolves to the
 * replies, or throws when any call failed. No call, no round trip. On a Cluster (`apart`), the
 * calls leave side by side: a pipeline there must stay on one node, and the calls' accounts may not.
 */
async function pipelined(
  redis: Redis,
  name: string,
  calls: readonly (string | number)[][],
  apart = false,
): Promise<unknown[]> {
  if (calls.length === 0) return [];
  if (apart) {
    const command = (redis as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
    const settled = await Promise.allSettled(calls.map((args) => command.apply(redis, args)));
    const failures = settled.filter((result) => result.status === 'rejected');
    if (failures.length > 0) {
      throw new Error(`${failures.length} of ${calls.length} ${name} calls failed`, {
        cause: failures[0]?.reason,
      });
    }
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value);
  }
  const pipeline = redis.pipeline();
  const queue = (pipeline as unknown as Record<string, ScriptCommand>)[name] as ScriptCommand;
  for (const args of calls) queue.apply(pipeline, args);
  const replies = (await pipeline.exec()) ?? [];
  const failures = replies.filter(([error]) => error !== null);
  if (failures.length > 0) {
    throw new Error(`${failures.length} of ${calls.length} ${name} calls failed`, {
      cause: failures[0]?.[0],
    });
  }
  return replies.map(([, reply]) => reply);
}

/** The script's arguments for a batch of admissions: the key count, every call's keys, then every call's arguments. */
function admitArguments(calls: readonly AdmitCall[]): (string | number)[] {
  const keys: string[] = [];
  const args: (string | number)[] = [];
  for (const call of calls) {
    keys.push(call.rateWindow, call.walletSnapshot, call.spendSnapshot);
    keys.push(call.walletHolds.expiries, call.walletHolds.amounts);
    keys.push(call.keyHolds.expiries, call.keyHolds.amounts);
    const [limit, windowMs, requestId, estimate, holdTtlMs, minRequired, cap, modelAllowed, count, bounded] =
      call.args;
    args.push(limit, windowMs, requestId, String(estimate), holdTtlMs, String(minRequired));
    args.push(cap === null ? '' : String(cap), modelAllowed ? '1' : '0', count ? '1' : '0');
    args.push(bounded ? '1' : '0');
  }
  return [calls.length * ADMIT_KEYS_PER_CALL, ...keys, ...args];
}

/**
 * The arguments of one SETTLE_LUA call (key count, KEYS, ARGV): each hold set once with the ids it
 * drops, each snapshot once, at the newest version the calls carry.
 */
function settleArguments(calls: readonly SettleCall[], snapshotTtlMs: number): (string | number)[] {
  const held = calls.flatMap(({ requestId, walletHolds, keyHolds }) =>
    keyHolds === null
      ? [[walletHolds, requestId] as const]
      : [[walletHolds, requestId] as const, [keyHolds, requestId] as const],
  );
  const snapshots = new Map<string, { field: 'balance' | 'spent'; write: SnapshotWrite }>();
  const keepNewest = (field: 'balance' | 'spent', write: SnapshotWrite | null) => {
    if (write === null) return;
    const present = snapshots.get(write.key);
    if (present === undefined || present.write.version < write.version)
      snapshots.set(write.key, { field, write });
  };
  for (const call of calls) {
    keepNewest('balance', call.wallet);
    keepNewest('spent', call.spend);
  }
  const holdSets = holdSetsOf(held);
  const keys: string[] = [];
  const args: (string | number)[] = [snapshotTtlMs, holdSets.length];
  for (const { holds, ids } of holdSets) {
    keys.push(holds.expiries, holds.amounts);
    args.push(ids.length, ...ids);
  }
  for (const [key, { field, write }] of snapshots) {
    keys.push(key);
    args.push(field, String(write.value), String(write.version));
  }
  return [keys.length, ...keys, ...args];
}

/** The arguments of RENEW_HOLDS_LUA calls (key count, KEYS, ARGV), at most RENEW_CHUNK holds each. */
function renewCalls(sets: readonly HoldSet[], leaseMs: number): (string | number)[][] {
  const calls: (string | number)[][] = [];
  let keys: string[] = [];
  let args: (string | number)[] = [];
  let holds = 0;
  const close = () => {
    if (keys.length > 0) calls.push([keys.length, ...keys, leaseMs, ...args]);
    keys = [];
    args = [];
    holds = 0;
  };
  for (const set of sets) {
    for (let from = 0; from < set.ids.length; from += RENEW_CHUNK) {
      const ids = set.ids.slice(from, from + RENEW_CHUNK);
      if (holds + ids.length > RENEW_CHUNK) close();
      keys.push(set.holds.expiries, set.holds.amounts);
      args.push(ids.length, ...ids);
      holds += ids.length;
    }
  }
  close();
  return calls;
}
