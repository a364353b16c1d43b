import { writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Connections,
  closeConnections,
  openConnections,
} from '../../../shared/src/runtime/connections.ts';
import { createS3Client, ensureBucket } from '../../../shared/src/storage/s3.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { mongoStoreEnvironment, testConfig, uniqueSuffix } from '../../helpers/test-config.ts';

const opened: Connections[] = [];
afterAll(async () => {
  await Promise.all(opened.map(closeConnections));
});

function open(config: ReturnType<typeof testConfig>, name = 'test') {
  const captured = captureLogger('info');
  return { connecting: openConnections(config, name, captured.logger), logs: captured.lines };
}

describe('openConnections', () => {
  it('connects to every store, creates the bucket, and logs which durable store it uses', async () => {
    const config = testConfig();
    const { connecting, logs } = open(config);
    const connections = await connecting;
    opened.push(connections);
    expect(await connections.redis.ping()).toBe('PONG');
    await expect(
      connections.s3.send(new HeadBucketCommand({ Bucket: config.s3.bucket })),
    ).resolves.toBeDefined();
    expect(connections.store.kind).toBe('sqlite');
    await expect(connections.store.ping()).resolves.toBeUndefined();
    expect(logs()).toContainEqual(expect.objectContaining({ msg: 'durable store: sqlite', store: 'sqlite' }));
  });

  it('opens MongoDB when MONGO_URL is set', async () => {
    const config = testConfig(mongoStoreEnvironment());
    const connections = await open(config).connecting;
    opened.push(connections);
    expect(connections.store.kind).toBe('mongodb');
    await expect(connections.store.ping()).resolves.toBeUndefined();
  });

  it('is idempotent: a second process on the same stores starts fine', async () => {
    const config = testConfig();
    opened.push(await open(config, 'first').connecting);
    opened.push(await open(config, 'second').connecting);
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

  it('fails, naming the cause, when MongoDB cannot be reached', async () => {
    const config = testConfig({
      MONGO_URL: 'mongodb://127.0.0.1:1',
      MONGO_SERVER_SELECTION_TIMEOUT_MS: '300',
    });
    await expect(open(config).connecting).rejects.toThrow(/ECONNREFUSED|connect/i);
  });
});

describe('a SQLite file that cannot be used stops the start-up, naming the file and the cause', () => {
  it('a corrupt file', async () => {
    const config = testConfig();
    if (config.store.kind !== 'sqlite') throw new Error('expected the SQLite store');
    writeFileSync(
      config.store.path,
      'this is not a database file, only text that happens to be long enough'.repeat(20),
    );
    await expect(open(config).connecting).rejects.toThrow(
      `SQLite store at ${config.store.path} cannot be used: file is not a database`,
    );
  });

  it('a file it cannot create (its folder is a file)', async () => {
    const config = testConfig();
    if (config.store.kind !== 'sqlite') throw new Error('expected the SQLite store');
    writeFileSync(`${config.store.path}.dir`, '');
    const blocked = testConfig({ SQLITE_PATH: `${config.store.path}.dir/gateway.db` });
    await expect(open(blocked).connecting).rejects.toThrow(
      /SQLite store at .*gateway\.db\.dir\/gateway\.db cannot be used: .*(ENOTDIR|EEXIST)/,
    );
  });

  it('a file another process keeps locked for longer than the busy timeout', async () => {
    const config = testConfig({ SQLITE_BUSY_TIMEOUT_MS: '200' });
    if (config.store.kind !== 'sqlite') throw new Error('expected the SQLite store');
    const other = new DatabaseSync(config.store.path);
    other.exec('PRAGMA journal_mode = WAL');
    other.exec('BEGIN EXCLUSIVE');
    try {
      await expect(open(config).connecting).rejects.toThrow(
        `SQLite store at ${config.store.path} cannot be used: database is locked`,
      );
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
