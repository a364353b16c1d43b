import type { S3Client } from '@aws-sdk/client-s3';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { mongoCheck, type ReadinessCheck, redisCheck, s3Check } from '../health/readiness.ts';
import { connectMongo, ensureIndexes, type Mongo } from '../mongo/mongo.ts';
import { createRedis } from '../redis/redis.ts';
import { createS3Client, ensureBucket } from '../storage/s3.ts';

/** The stateful clients a process holds: Redis (commands), MongoDB and S3. */
export interface Connections {
  readonly redis: Redis;
  readonly mongo: Mongo;
  readonly s3: S3Client;
  readonly readinessChecks: readonly ReadinessCheck[];
}

/**
 * Connects to every store, creates declared indexes and the media bucket when missing. Fails
 * (closing what it opened) when a store cannot be reached, so a process never starts half-wired.
 */
export async function openConnections(config: Config, processName: string): Promise<Connections> {
  const redis = createRedis(config.redis.url, { connectionName: processName });
  const s3 = createS3Client(config.s3);
  let mongo: Mongo | undefined;
  try {
    await redis.ping();
    mongo = await connectMongo(config.mongo);
    await ensureIndexes(mongo.db);
    await ensureBucket(s3, config.s3.bucket);
  } catch (err) {
    redis.disconnect();
    s3.destroy();
    await mongo?.client.close();
    throw err;
  }
  const readinessChecks = [redisCheck(redis), mongoCheck(mongo.db), s3Check(s3, config.s3.bucket)];
  return { redis, mongo, s3, readinessChecks };
}

export async function closeConnections(connections: Connections): Promise<void> {
  await Promise.allSettled([connections.redis.quit(), connections.mongo.client.close()]);
  connections.s3.destroy();
}
