/**
 * Whether a failure says that a store the request needs (Redis, the durable store, S3) cannot be
 * reached right now, as opposed to a bug or a refused request. Such failures answer 503 with
 * `Retry-After` (the store recovers on its own; the request can be repeated), everything else
 * stays a 500. Causes (`cause`, `AggregateError.errors`) are followed a few levels deep, since a
 * layer may wrap the client's error in its own.
 */
export function isStoreUnavailable(err: unknown): boolean {
  return someCause(err, isStoreOutageItself, 4);
}

/** Seconds a client is told to wait while a store is down (ioredis reconnects every ≤ 2 s). */
export const STORE_RETRY_AFTER_SECONDS = 5;

type ErrorLike = {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly errcode?: unknown;
  readonly $metadata?: unknown;
  readonly $fault?: unknown;
  readonly hasErrorLabel?: unknown;
};

function someCause(err: unknown, test: (e: ErrorLike) => boolean, depth: number): boolean {
  if (err === null || typeof err !== 'object' || depth < 0) return false;
  const e = err as ErrorLike & { cause?: unknown; errors?: unknown };
  if (test(e)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => someCause(inner, test, depth - 1))) return true;
  return someCause(e.cause, test, depth - 1);
}

function isStoreOutageItself(e: ErrorLike): boolean {
  return isRedisOutage(e) || isSqliteOutage(e) || isMongoOutage(e) || isS3Outage(e);
}

/** ioredis: commands refused while disconnected, dropped with the connection, or timed out. */
const REDIS_MESSAGES = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Connection is closed.',
  'Command timed out',
  // A Cluster client while the cluster is re-forming (a master lost, slots moving).
  "Cluster isn't ready and enableOfflineQueue options is false",
  'None of startup nodes is available',
  'Failed to refresh slots cache.',
  'Node is disconnected',
]);
/** Redis replies that mean "not now" (loading its data, a script running, failover). */
const REDIS_TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN) /;

function isRedisOutage(e: ErrorLike): boolean {
  if (e.name === 'MaxRetriesPerRequestError' || e.name === 'ClusterAllFailedError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (REDIS_MESSAGES.has(message)) return true;
  if (message.startsWith('Too many Cluster redirections.')) return true;
  if (e.name === 'AbortError' && message.startsWith('Command aborted due to connection close')) return true;
  return e.name === 'ReplyError' && REDIS_TRANSIENT_REPLY.test(message);
}

/** node:sqlite primary result codes: BUSY (after busy_timeout), LOCKED, IOERR, FULL, CANTOPEN. */
const SQLITE_UNAVAILABLE = new Set([5, 6, 10, 13, 14]);

function isSqliteOutage(e: ErrorLike): boolean {
  if (e.code !== 'ERR_SQLITE_ERROR' || typeof e.errcode !== 'number') return false;
  // Extended result codes carry the primary code in their low byte (SQLITE_BUSY_SNAPSHOT = 517).
  return SQLITE_UNAVAILABLE.has(e.errcode & 0xff);
}

const MONGO_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
]);
const MONGO_TRANSIENT_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool'];

function isMongoOutage(e: ErrorLike): boolean {
  if (typeof e.name === 'string' && MONGO_UNAVAILABLE.has(e.name)) return true;
  if (typeof e.hasErrorLabel !== 'function') return false;
  const hasLabel = e.hasErrorLabel as (label: string) => boolean;
  return MONGO_TRANSIENT_LABELS.some((label) => hasLabel.call(e, label));
}

/** Socket-level failures; only believed of the AWS SDK's errors (they carry `$metadata`). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

function isS3Outage(e: ErrorLike): boolean {
  if (e.$metadata === undefined || e.$metadata === null) return false;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'RequestTimeout') return true;
  // S3's own 5xx answers (InternalError, SlowDown, ServiceUnavailable) are retryable.
  return e.$fault === 'server';
}
