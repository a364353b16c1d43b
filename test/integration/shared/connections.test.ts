import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { checkReadiness, s3Check } from '../../../shared/src/health/readiness.ts';
import { createMediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
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
      (await connections.s3.use()).client.send(new HeadBucketCommand({ Bucket: config.s3.bucket })),
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

  it('with S3 on first use, makes neither client nor bucket until media are stored, and is ready', async () => {
    const config = testConfig();
    const connections = await openConnections(config, 'api', captureLogger('silent').logger, {
      s3: 'on-first-use',
    });
    opened.push(connections);
    expect(connections.s3.made).toBe(false);
    const report = await checkReadiness(connections.readinessChecks, 2_000);
    expect(report).toMatchObject({ ready: true, checks: { s3: 'ok' } });
    expect(connections.s3.made).toBe(false);
    const other = createS3Client(config.s3);
    try {
      await expect(other.send(new HeadBucketCommand({ Bucket: config.s3.bucket }))).rejects.toThrow();
      const storage = createMediaStorage(connections.s3, config.s3.bucket);
      await storage.put('jobs/j1/a1/image-0.png', new Uint8Array([1, 2, 3]), 'image/png');
      expect(connections.s3.made).toBe(true);
      expect(await storage.getBytes('jobs/j1/a1/image-0.png')).toEqual(new Uint8Array([1, 2, 3]));
      await expect(other.send(new HeadBucketCommand({ Bucket: config.s3.bucket }))).resolves.toBeDefined();
    } finally {
      other.destroy();
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

describe('the readiness check of S3', () => {
  it("passes on any HTTP answer at the bucket's address (a real S3 answers an unsigned HEAD 403)", async () => {
    const server = createServer((_request, response) => {
      response.statusCode = 403;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const check = s3Check({ endpoint, region: 'us-east-1' }, 'media');
      await expect(check.check(AbortSignal.timeout(2_000))).resolves.toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails when nothing answers there', async () => {
    const check = s3Check({ endpoint: `http://127.0.0.1:${await freePort()}`, region: 'us-east-1' }, 'media');
    await expect(check.check(AbortSignal.timeout(2_000))).rejects.toThrow(/ECONNREFUSED|connect/i);
  });
});
