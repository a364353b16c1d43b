/**
 * Transcription uploads that cannot be read: no boundary, another boundary (400), and bodies that
 * stop arriving while the connection stays open (408 within BODY_READ_TIMEOUT_MS, connection
 * closed). None charges or holds anything, leaves an object or a multipart upload in S3, or stays
 * in the api's memory.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingKeys } from '../../../shared/src/billing/redis-keys.ts';
import { wavOfSeconds } from '../../../shared/src/file-formats/builders/wav.ts';
import { type CreatedKey, createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../../helpers/listening-app.ts';
import { openSocket, portOf, type RawResponse, rawRequest, readResponse } from '../../helpers/raw-http.ts';

const TIMEOUT_MS = 500;
let t: ListeningApp;
let port: number;
let user: CreatedKey;
/** Multipart uploads the api's S3 client created, and the ones it aborted (by UploadId). */
const created: string[] = [];
const aborted: string[] = [];
/** Requests the api's HTTP server has received and not finished answering. */
let inFlight = 0;
/** Every request the server received, held weakly: a request that stays reachable is kept. */
const requests: WeakRef<object>[] = [];

beforeAll(async () => {
  t = await startListeningApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      BODY_READ_TIMEOUT_MS: String(TIMEOUT_MS),
      DEFAULT_STT_MODEL: 'demo/stt',
    },
  });
  port = portOf(t.origin);
  // A rate limit above the 200 requests of the last test.
  user = await createFundedKey(t.app, { topUp: 100_000, settings: { rate_limit: 3000 } });
  (await t.connections.s3.use()).client.middlewareStack.add(
    (next, context) => async (args) => {
      // Recorded when sent: s3rver answers AbortMultipartUpload 405 (not implemented), MinIO 204.
      if (context.commandName === 'AbortMultipartUploadCommand')
        aborted.push(String((args.input as { UploadId?: string }).UploadId));
      const result = await next(args);
      if (context.commandName === 'CreateMultipartUploadCommand')
        created.push(String((result.output as { UploadId?: string }).UploadId));
      return result;
    },
    { step: 'initialize', name: 'recordMultipartUploads' },
  );
  t.app.server.on('request', (request, response) => {
    requests.push(new WeakRef(request));
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
    });
  });
});
afterAll(() => t.close());

const BOUNDARY = 'gateway-test-boundary';

/** A whole multipart transcription body (model field, then the file). */
function multipartBody(file: Uint8Array, boundary = BOUNDARY): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ndemo/stt\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

function head(contentType: string, length: number): string {
  return (
    'POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    `Authorization: Bearer ${user.key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`
  );
}

/**
 * Sends the head and the first `sentBytes` of a whole multipart body of a `seconds`-long WAV, keeps
 * the connection open and returns the answer.
 */
async function truncatedUpload(seconds: number, sentBytes: number): Promise<RawResponse> {
  const body = multipartBody(wavOfSeconds(seconds));
  const socket = await openSocket(port);
  try {
    const started = Date.now();
    const answer = readResponse(socket, 30_000, started);
    socket.write(head(`multipart/form-data; boundary=${BOUNDARY}`, body.length));
    socket.write(body.subarray(0, sentBytes));
    return await answer;
  } finally {
    socket.destroy();
  }
}

function errorOf(res: RawResponse): Record<string, unknown> {
  return (JSON.parse(res.body) as { error: Record<string, unknown> }).error;
}

/** Nothing charged or held, no upload object left, every multipart upload started aborted. */
async function expectNoTrace(balanceBefore: bigint): Promise<void> {
  const { billing } = t.services;
  await billing.flush();
  expect(await billing.balanceOf(user.accountId)).toBe(balanceBefore);
  const entries = await billing.listLedger(user.accountId, { limit: 100 });
  expect(entries.filter((entry) => entry.kind === 'charge')).toEqual([]);
  const holds = billingKeys(`${t.config.queues.prefix}:billing:`);
  expect(await t.connections.redis.zcard(holds.walletHolds(user.accountId).expiries)).toBe(0);
  expect(await t.connections.redis.zcard(holds.keyHolds(user.accountId, user.keyId).expiries)).toBe(0);
  const listed = await (await t.connections.s3.use()).client.send(
    new ListObjectsV2Command({ Bucket: t.config.s3.bucket, Prefix: 'uploads/' }),
  );
  expect(listed.KeyCount ?? 0).toBe(0);
  expect([...aborted].sort()).toEqual([...created].sort());
  const open = await openMultipartUploads();
  if (open !== undefined) expect(open).toBe(0);
}

/** Multipart uploads open on the bucket, where the S3 server can list them (s3rver cannot). */
async function openMultipartUploads(): Promise<number | undefined> {
  try {
    const listed = await (await t.connections.s3.use()).client.send(
      new ListMultipartUploadsCommand({ Bucket: t.config.s3.bucket }),
    );
    return listed.Uploads?.length ?? 0;
  } catch {
    return undefined;
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A full garbage collection, without starting the test process with --expose-gc. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
}

async function openConnections(): Promise<number> {
  return new Promise((resolve, reject) =>
    t.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );
}

describe('multipart bodies that cannot be read answer 400, never 500', () => {
  it('a multipart content type without a boundary', async () => {
    const body = multipartBody(wavOfSeconds(1));
    const res = await rawRequest(
      port,
      Buffer.concat([Buffer.from(head('multipart/form-data', body.length)), body]),
    );
    expect(res.status, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', param: null });
    expect(String(errorOf(res).message)).toMatch(/boundary/);
  });

  it('an empty boundary', async () => {
    const body = multipartBody(wavOfSeconds(1));
    const res = await rawRequest(
      port,
      Buffer.concat([Buffer.from(head('multipart/form-data; boundary=', body.length)), body]),
    );
    expect(res.status, res.body).toBe(400);
  });

  it('a body that does not use the boundary its content type names', async () => {
    const balance = await t.services.billing.balanceOf(user.accountId);
    const body = multipartBody(wavOfSeconds(1), 'another-boundary');
    const res = await rawRequest(
      port,
      Buffer.concat([Buffer.from(head(`multipart/form-data; boundary=${BOUNDARY}`, body.length)), body]),
    );
    expect(res.status, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', param: null });
    expect(String(errorOf(res).message)).toMatch(/malformed|cut short/);
    await expectNoTrace(balance);
  });

  it('a file part cut short by the closing boundary of the body', async () => {
    const file = wavOfSeconds(1);
    const whole = multipartBody(file);
    // The body ends (Content-Length matches what is sent) in the middle of the file part.
    const cut = whole.subarray(0, whole.length - 1_000);
    const res = await rawRequest(
      port,
      Buffer.concat([Buffer.from(head(`multipart/form-data; boundary=${BOUNDARY}`, cut.length)), cut]),
    );
    expect(res.status, res.body).toBe(400);
  });
});

describe('an upload that stops arriving (connection kept open)', () => {
  it('answers 408 within the deadline, closes the connection and leaves no trace', async () => {
    const balance = await t.services.billing.balanceOf(user.accountId);
    const res = await truncatedUpload(5, 60_000);
    expect(res.status, res.body).toBe(408);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', param: null });
    expect(res.headers.connection).toBe('close');
    expect(res.closed).toBe(true);
    expect(res.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(res.ms).toBeLessThan(TIMEOUT_MS * 4);
    await expectNoTrace(balance);
    const logged = t.logs().find((line) => line.msg === 'request body stalled');
    expect(logged).toBeDefined();
  });

  it('answers a JSON body that stops arriving 408 too, counted against the key with its rate headers', async () => {
    const balance = await t.services.billing.balanceOf(user.accountId);
    const body = JSON.stringify({ model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] });
    const socket = await openSocket(port);
    let res: RawResponse;
    try {
      const answer = readResponse(socket, 30_000, Date.now());
      socket.write(
        'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          `Authorization: Bearer ${user.key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
      );
      res = await answer;
    } finally {
      socket.destroy();
    }
    expect(res.status, res.body).toBe(408);
    expect(res.headers['x-ratelimit-limit']).toBe('3000');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(3000);
    expect(res.headers.connection).toBe('close');
    await expectNoTrace(balance);
  });

  it('aborts the S3 multipart upload already started for a large upload cut off mid-file', async () => {
    const balance = await t.services.billing.balanceOf(user.accountId);
    const before = created.length;
    // 16-bit mono 16 kHz: 240 s is 7.7 MB; 6 MB arrive, so the first 5 MB part is uploaded.
    const res = await truncatedUpload(240, 6 * 1024 * 1024);
    expect(res.status, res.body).toBe(408);
    expect(created.length).toBe(before + 1);
    await expectNoTrace(balance);
  });

  it('keeps nothing of 200 of them: requests, connections and multipart uploads all end', async () => {
    const balance = await t.services.billing.balanceOf(user.accountId);
    const statuses: number[] = [];
    const first = requests.length;
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => truncatedUpload(5, 100_000)));
      statuses.push(...answers.map((res) => res.status));
    }
    expect(statuses.filter((status) => status !== 408)).toEqual([]);
    expect(t.logs().filter((line) => line.msg === 'request body stalled').length).toBeGreaterThanOrEqual(200);
    await until(() => inFlight === 0);
    await until(async () => (await openConnections()) === 0);
    await expectNoTrace(balance);
    // Nothing in the api holds on to them (their bodies, parsers, upload streams): after a
    // collection, none of the 200 requests is reachable any more.
    const ours = requests.slice(first);
    expect(ours).toHaveLength(200);
    await until(async () => {
      await collectGarbage();
      return ours.every((ref) => ref.deref() === undefined);
    }, 10_000);
  });
});
