import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../shared/src/config/config.ts';
import '../setup/stack-endpoints.ts';

/** A short random suffix, so each test file gets its own database, bucket and queue prefix. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** The environment pointing at the test stores, with a fresh database, bucket and queue prefix. */
export function testEnvironment(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const stack = inject('stack');
  const suffix = uniqueSuffix();
  return {
    LOG_LEVEL: 'silent',
    REDIS_URL: stack.redisUrl,
    MONGO_URL: stack.mongoUrl,
    MONGO_DB: `test_${suffix}`,
    S3_ENDPOINT: stack.s3.endpoint,
    S3_ACCESS_KEY_ID: stack.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: stack.s3.secretAccessKey,
    S3_BUCKET: `test-${suffix}`,
    QUEUE_PREFIX: `test-${suffix}`,
    ...overrides,
  };
}

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig(testEnvironment(overrides));
}
