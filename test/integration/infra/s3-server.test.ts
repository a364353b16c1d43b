/**
 * The local s3rver (tests, benches and `npm start`): each run has a random key pair of its own,
 * whose access key id s3rver requires while it runs (it verifies no SigV4 signature, so the secret
 * is not checked), revoked when it stops.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalS3, startS3Server } from '../../../infra/local-services/s3-server.ts';
import { createS3Client, ensureBucket } from '../../../shared/src/storage/s3.ts';

const started: LocalS3[] = [];
afterEach(async () => {
  for (const s3 of started.splice(0)) await s3.stop().catch(() => undefined);
});

async function run(): Promise<LocalS3> {
  const s3 = await startS3Server(mkdtempSync(join(tmpdir(), 's3rver-')));
  started.push(s3);
  return s3;
}

function client(s3: LocalS3, secretAccessKey = s3.secretAccessKey) {
  return createS3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    accessKeyId: s3.accessKeyId,
    secretAccessKey,
    forcePathStyle: true,
  });
}

describe('startS3Server', () => {
  it('gives each run its own key pair, long enough for the secret scrubber', async () => {
    const [a, b] = [await run(), await run()];
    expect(a.accessKeyId).not.toBe(b.accessKeyId);
    expect(a.secretAccessKey).not.toBe(b.secretAccessKey);
    expect(a.secretAccessKey.length).toBeGreaterThanOrEqual(32);
    expect(a.secretAccessKey).not.toBe('S3RVER');
  });

  it('accepts its pair and refuses an access key id it does not know (s3rver checks no SigV4 signature)', async () => {
    const s3 = await run();
    await ensureBucket(client(s3), 'media');
    await expect(client(s3).send(new HeadBucketCommand({ Bucket: 'media' }))).resolves.toBeDefined();
    const stranger = createS3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: 'LOCALNOTREGISTERED',
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    await expect(stranger.send(new HeadBucketCommand({ Bucket: 'media' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
  });

  it('revokes its pair when it stops', async () => {
    const first = await run();
    const second = await run();
    await ensureBucket(client(second), 'media');
    // The first run's pair, presented to the server still running, after the first stopped.
    await first.stop();
    const stale = createS3Client({
      endpoint: second.endpoint,
      region: 'us-east-1',
      accessKeyId: first.accessKeyId,
      secretAccessKey: first.secretAccessKey,
      forcePathStyle: true,
    });
    await expect(stale.send(new HeadBucketCommand({ Bucket: 'media' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
  });
});
