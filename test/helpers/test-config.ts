import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../shared/src/config/config.ts';
import '../setup/stack-endpoints.ts';

/** The channel secret key of the test processes (32 bytes, base64). */
export const TEST_CHANNEL_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** A short random suffix, so each test file gets its own database, bucket and queue prefix. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/**
 * The store a test app uses: a fresh SQLite file (the default store), or, with `TEST_STORE=mongodb`,
 * a fresh database on the stack's MongoDB-wire server.
 */
export function testStoreEnvironment(suffix = uniqueSuffix()): Record<string, string | undefined> {
  if (process.env.TEST_STORE === 'mongodb') return mongoStoreEnvironment(suffix);
  const folder = mkdtempSync(join(tmpdir(), 'gw-test-'));
  return {
    MONGO_URL: undefined,
    SQLITE_PATH: join(folder, 'gateway.db'),
    REQUEST_LOG_PATH: join(folder, 'requests.db'),
  };
}

/**
 * The environment of api replicas behind one load balancer: the same store, Redis prefix and
 * bucket (fresh ones, named after `name`), so that each `buildTestApp` with it is another replica.
 */
export function replicaEnvironment(name: string): Record<string, string | undefined> {
  const suffix = uniqueSuffix();
  return {
    ...testStoreEnvironment(suffix),
    QUEUE_PREFIX: `${name}-${suffix}`,
    S3_BUCKET: `${name}-${suffix}`,
  };
}

/** The variables naming the store of `config`, for another process that must share it. */
export function storeEnvironmentOf(config: Config): Record<string, string | undefined> {
  const { store } = config;
  if (store.kind === 'sqlite')
    return { MONGO_URL: undefined, SQLITE_PATH: store.path, REQUEST_LOG_PATH: config.requestLog.path };
  return { MONGO_URL: store.url, MONGO_DB: store.database };
}

/** A fresh database on the stack's MongoDB-wire server (for tests of the MongoDB store). */
export function mongoStoreEnvironment(suffix = uniqueSuffix()): Record<string, string | undefined> {
  return { MONGO_URL: inject('stack').mongoUrl, MONGO_DB: `test_${suffix}` };
}

/** The environment pointing at the test stores, with a fresh database, bucket and queue prefix. */
export function testEnvironment(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const stack = inject('stack');
  const suffix = uniqueSuffix();
  // A test that names its own Redis (REDIS_URL, a Cluster, sentinels) gets that one, even on a
  // Cluster run; the others get the stack's Cluster (TEST_REDIS_MODE=cluster) or its one node.
  const own = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].some(
    (name) => overrides[name] !== undefined,
  );
  const redis = own
    ? { REDIS_URL: undefined }
    : stack.redisClusterNodes !== undefined
      ? { REDIS_URL: undefined, REDIS_CLUSTER_NODES: stack.redisClusterNodes }
      : { REDIS_URL: stack.redisUrl };
  return {
    LOG_LEVEL: 'silent',
    ...redis,
    ...testStoreEnvironment(suffix),
    S3_ENDPOINT: stack.s3.endpoint,
    S3_ACCESS_KEY_ID: stack.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: stack.s3.secretAccessKey,
    S3_BUCKET: `test-${suffix}`,
    QUEUE_PREFIX: `test-${suffix}`,
    // Tests script upstream failures on one environment channel per provider: its breaker opens only
    // where a test asks for it (docs/channels.md, Breaker).
    CHANNEL_FAILURE_THRESHOLD: '100',
    CHANNEL_SECRET_KEY: TEST_CHANNEL_SECRET_KEY,
    ...overrides,
  };
}

/** The variables naming the Redis of `config` (any mode), for another process that must share it. */
export function redisEnvironmentOf(config: Config): Record<string, string | undefined> {
  const { redis } = config;
  const nodes = (list: readonly { host: string; port: number }[]) =>
    list.map((n) => `${n.host}:${n.port}`).join(',');
  if (redis.mode === 'single') return { REDIS_URL: redis.url };
  if (redis.mode === 'cluster') return { REDIS_URL: undefined, REDIS_CLUSTER_NODES: nodes(redis.nodes) };
  return {
    REDIS_URL: undefined,
    REDIS_SENTINELS: nodes(redis.sentinels),
    REDIS_SENTINEL_MASTER: redis.masterName,
  };
}

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig(testEnvironment(overrides));
}
