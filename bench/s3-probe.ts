/**
 * What one S3 call of the media path costs here: the SDK against s3rver (the S3 server of these
 * machines, which writes each object and its metadata to files), and the same SDK calls against a
 * no-op HTTP server (the client's own share). Sequential, median of `samples` after a warm-up.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import { createS3Client, ensureBucket } from '../shared/src/storage/s3.ts';
import { median } from './stats.ts';

export interface S3Cost {
  readonly bytes: number;
  /** Median ms of one put and one get (whole body read). */
  readonly s3rver: { readonly put: number; readonly get: number };
  readonly noop: { readonly put: number; readonly get: number };
}

const BUCKET = 'bench-s3-probe';

export async function probeS3Cost(dir: string, bytes = 60_000, samples = 40): Promise<S3Cost> {
  const s3 = await startS3Server(dir);
  const noop = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = req.method === 'GET' ? Buffer.alloc(bytes) : Buffer.alloc(0);
      res.writeHead(200, { etag: '"probe"', 'content-length': String(body.length) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => noop.listen(0, '127.0.0.1', resolve));
  try {
    const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    const options = { region: 'us-east-1', forcePathStyle: true, ...credentials };
    const real = createS3Client({ ...options, endpoint: s3.endpoint });
    await ensureBucket(real, BUCKET);
    const { port } = noop.address() as AddressInfo;
    const fake = createS3Client({ ...options, endpoint: `http://127.0.0.1:${port}` });
    const body = Buffer.alloc(bytes, 7);
    const time = async (client: typeof real) => {
      const put: number[] = [];
      const get: number[] = [];
      for (let i = 0; i < samples + 5; i++) {
        const key = `probe-${i}.png`;
        let at = performance.now();
        await client.send(
          new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentType: 'image/png' }),
        );
        const putMs = performance.now() - at;
        at = performance.now();
        const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
        await answer.Body?.transformToByteArray();
        if (i >= 5) {
          put.push(putMs);
          get.push(performance.now() - at);
        }
      }
      return { put: median(put), get: median(get) };
    };
    return { bytes, s3rver: await time(real), noop: await time(fake) };
  } finally {
    noop.close();
    await s3.stop().catch(() => undefined);
  }
}
