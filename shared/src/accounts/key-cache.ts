import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import type { AccountRecord, AccountsRepository } from './accounts.repository.ts';
import type { ApiKeyRecord, ApiKeysRepository } from './api-keys.repository.ts';
import { BoundedMap } from './bounded-map.ts';
import type { KeySettings } from './key-settings.ts';

/**
 * A key as admission needs it: its settings and its account's status. Validity (active, expiry,
 * deletion, account status) is decided by the caller with its clock, so a cached record expires on
 * time.
 */
export interface ResolvedKey extends KeySettings {
  readonly id: string;
  readonly accountId: string;
  readonly accountActive: boolean;
  readonly last4: string;
  readonly deleted: boolean;
}

/** The in-process cache of key lookups (hash -> key), invalidated on every replica through pub/sub. */
export interface KeyCache {
  /** The key whose full value has this SHA-256 hex digest, or null when none has. */
  lookup(hash: string): Promise<ResolvedKey | null>;
  /** Drops the key with this hash on every replica (after any change to the key). */
  invalidateKey(hash: string): Promise<void>;
  /** Drops every key of the account on every replica (after a change to the account). */
  invalidateAccount(accountId: string): Promise<void>;
  /** Subscribes to invalidations; call once before serving. */
  start(): Promise<void>;
  /** Unsubscribes and empties the cache; the Redis connections stay open (the caller owns them). */
  close(): Promise<void>;
}

export interface KeyCacheOptions {
  readonly keys: Pick<ApiKeysRepository, 'findByHash'>;
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  /** Connection the invalidations are published on. */
  readonly redis: Pick<Redis, 'publish'>;
  /** A dedicated connection: once subscribed, ioredis refuses ordinary commands on it. */
  readonly subscriber: Redis;
  /** How long a loaded record is served without reading the store again (at most 60 s by spec). */
  readonly ttlMs: number;
  /** Pub/sub channel, unique per deployment (derived from the Redis key prefix). */
  readonly channel: string;
  /** Milliseconds now; injected by tests. */
  readonly clock?: () => number;
  readonly logger?: Logger;
  /** Largest number of keys kept; the least recently used go first. */
  readonly maxEntries?: number;
  /** Largest number of unknown hashes remembered, apart from the keys so a flood evicts no key. */
  readonly maxNegativeEntries?: number;
  /**
   * How long an unknown hash is remembered (default: `ttlMs`, as long as a key). Safe: creating a
   * key invalidates its hash on every replica, like any change to a key.
   */
  readonly negativeTtlMs?: number;
}

type Invalidation =
  | { readonly kind: 'key'; readonly hash: string }
  | { readonly kind: 'account'; readonly accountId: string };

/** Creates the key cache; `start()` it before use. */
export function createKeyCache(options: KeyCacheOptions): KeyCache {
  const clock = options.clock ?? Date.now;
  const negativeTtlMs = options.negativeTtlMs ?? options.ttlMs;
  const found = new BoundedMap<string, { key: ResolvedKey; loadedAt: number }>(options.maxEntries ?? 10_000);
  const unknown = new BoundedMap<string, number>(options.maxNegativeEntries ?? 10_000);
  const loading = new Map<string, Promise<ResolvedKey | null>>();
  // Bumped by every invalidation: a load that started before one must not store what it read.
  let epoch = 0;
  let subscribed = false;

  async function load(hash: string): Promise<ResolvedKey | null> {
    const startedAt = clock();
    const startedEpoch = epoch;
    const key = await resolve(options, hash);
    if (epoch === startedEpoch) {
      if (key === null) unknown.set(hash, startedAt);
      else found.set(hash, { key, loadedAt: startedAt });
    }
    return key;
  }

  function apply(message: Invalidation): void {
    epoch += 1;
    // Lookups after an invalidation must not join a read that may have started before the change.
    loading.clear();
    if (message.kind === 'key') {
      found.delete(message.hash);
      unknown.delete(message.hash);
    } else {
      found.deleteWhere((entry) => entry.key.accountId === message.accountId);
    }
  }

  async function publish(message: Invalidation): Promise<void> {
    apply(message);
    try {
      await options.redis.publish(options.channel, JSON.stringify(message));
    } catch (err) {
      // The change is stored; other replicas then see it when their entry's TTL runs out.
      options.logger?.warn({ err, channel: options.channel }, 'key cache invalidation not published');
    }
  }

  const onMessage = (channel: string, text: string) => {
    if (channel !== options.channel) return;
    const message = parseInvalidation(text);
    if (message === undefined) options.logger?.warn({ channel }, 'malformed key cache invalidation ignored');
    else apply(message);
  };
  // Messages published while the subscriber was reconnecting are lost: forget everything instead.
  const onReconnected = () => {
    epoch += 1;
    loading.clear();
    found.clear();
    unknown.clear();
  };

  return {
    async lookup(hash) {
      // Both maps are asked for every hash, so a known key and an unknown hash cost the same.
      const now = clock();
      const hit = found.get(hash);
      const miss = unknown.get(hash);
      if (hit !== undefined && now - hit.loadedAt < options.ttlMs) return hit.key;
      if (miss !== undefined && now - miss < negativeTtlMs) return null;
      const pending = loading.get(hash);
      if (pending !== undefined) return pending;
      const promise = load(hash).finally(() => {
        if (loading.get(hash) === promise) loading.delete(hash);
      });
      loading.set(hash, promise);
      return promise;
    },
    invalidateKey: (hash) => publish({ kind: 'key', hash }),
    invalidateAccount: (accountId) => publish({ kind: 'account', accountId }),
    async start() {
      if (subscribed) return;
      options.subscriber.on('message', onMessage);
      await options.subscriber.subscribe(options.channel);
      options.subscriber.on('ready', onReconnected);
      subscribed = true;
    },
    async close() {
      if (subscribed) {
        options.subscriber.off('message', onMessage);
        options.subscriber.off('ready', onReconnected);
        subscribed = false;
        await options.subscriber.unsubscribe(options.channel).catch(() => undefined);
      }
      onReconnected();
    },
  };
}

/** An account id of the right form that no account has (ids carry 96 random bits). */
const NO_ACCOUNT_ID = `acct_${'0'.repeat(24)}`;

/**
 * The store reads behind a lookup: the key by hash, then its account. An unknown hash reads an
 * account too (one that does not exist), so that the first use of an unknown key and of an
 * existing but unusable one (disabled, expired, deleted, account inactive) take the same two
 * reads: the answer time does not tell whether a key exists. Both outcomes are then cached alike
 * (`ttlMs`, the same bounded LRU, dropped by the same invalidations).
 *
 * What remains, below the noise of a network round trip: a read that finds a row decodes it and
 * one that does not returns early (in the store, and `toResolvedKey` here), so the two paths
 * differ by microseconds of CPU, not by a store round trip. A presented key that does not start
 * with `hk-` is refused before any lookup, which reveals nothing about stored keys.
 */
async function resolve(options: KeyCacheOptions, hash: string): Promise<ResolvedKey | null> {
  const record = await options.keys.findByHash(hash);
  const account = await options.accounts.findById(record?.accountId ?? NO_ACCOUNT_ID);
  return record === null ? null : toResolvedKey(record, account);
}

/** The cached view of a stored key; a key whose account is missing is treated as inactive. */
export function toResolvedKey(record: ApiKeyRecord, account: AccountRecord | null): ResolvedKey {
  return Object.freeze({
    id: record.id,
    accountId: record.accountId,
    accountActive: account?.status === 'active',
    name: record.name,
    last4: record.last4,
    rateLimit: record.rateLimit,
    monthlyCapMicros: record.monthlyCapMicros,
    allowedIps: Object.freeze([...record.allowedIps]),
    allowedModels: record.allowedModels === null ? null : Object.freeze([...record.allowedModels]),
    identityInjection: record.identityInjection,
    expiresAt: record.expiresAt,
    active: record.active,
    deleted: record.deletedAt !== null,
  });
}

function parseInvalidation(text: string): Invalidation | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value.kind === 'key' && typeof value.hash === 'string') return { kind: 'key', hash: value.hash };
    if (value.kind === 'account' && typeof value.accountId === 'string') {
      return { kind: 'account', accountId: value.accountId };
    }
  } catch {
    // not JSON: reported by the caller as malformed
  }
  return undefined;
}
