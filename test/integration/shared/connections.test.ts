import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { declareIndexes } from '../../../shared/src/mongo/indexes.ts';
import {
  type Connections,
  closeConnections,
  openConnections,
} from '../../../shared/src/runtime/connections.ts';
import { createS3Client, ensureBucket } from '../../../shared/src/storage/s3.ts';
import { testConfig, uniqueSuffix } from '../../helpers/test-config.ts';

const opened: Connections[] = [];
afterAll(async () => {
  await Promise.all(opened.map(closeConnections));
});

describe('openConnections', () => {
  it('connects to every store, creates the bucket and the declared indexes', async () => {
    declareIndexes('connections_test_items', [
      // serves: findOne({ sku }) in this test
      { key: { sku: 1 }, name: 'sku_unique', unique: true },
    ]);
    const config = testConfig();
    const connections = await openConnections(config, 'test');
    opened.push(connections);
    expect(await connections.redis.ping()).toBe('PONG');
    await expect(
      connections.s3.send(new HeadBucketCommand({ Bucket: config.s3.bucket })),
    ).resolves.toBeDefined();
    const items = connections.mongo.db.collection('connections_test_items');
    await items.insertOne({ sku: 'a' });
    await expect(items.insertOne({ sku: 'a' })).rejects.toThrow(/duplicate key/i);
  });

  it('is idempotent: a second process on the same stores starts fine', async () => {
    const config = testConfig();
    opened.push(await openConnections(config, 'first'));
    opened.push(await openConnections(config, 'second'));
  });

  it('survives two processes creating the same bucket at once', async () => {
    const config = testConfig();
    const s3 = createS3Client(config.s3);
    try {
      for (let round = 0; round < 5; round += 1) {
        const bucket = `race-${uniqueSuffix()}`;
        await Promise.all([ensureBucket(s3, bucket), ensureBucket(s3, bucket), ensureBucket(s3, bucket)]);
        await expect(s3.send(new HeadBucketCommand({ Bucket: bucket }))).resolves.toBeDefined();
      }
    } finally {
      s3.destroy();
    }
  });

  it('fails, naming the cause, when a store cannot be reached', async () => {
    const config = testConfig({
      MONGO_URL: 'mongodb://127.0.0.1:1',
      MONGO_SERVER_SELECTION_TIMEOUT_MS: '300',
    });
    await expect(openConnections(config, 'test')).rejects.toThrow(/ECONNREFUSED|connect/i);
  });
});
