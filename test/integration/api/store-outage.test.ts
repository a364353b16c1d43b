/**
 * A store the request needs is down: 503 `upstream_error` with `Retry-After` (never a 500, never a
 * request left waiting), and answers again once the store is back. Redis is a redis-server of this
 * test, stopped and restarted on its port; the durable store is held locked by another connection
 * (SQLITE_BUSY after busy_timeout); S3 is an s3rver of this test, stopped.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isStoreUnavailable } from '../../../api/src/plugins/store-outage.ts';
import { spawnUntilReady } from '../../../infra/local-services/child-process.ts';
import { type LocalRedis, startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { startS3Server } from '../../../infra/local-services/s3-server.ts';
import { wavOfSeconds } from '../../../shared/src/file-formats/builders/wav.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const apps: TestApp[] = [];
const stops: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
  await Promise.all(stops.map((stop) => stop()));
});

/** A redis-server on a given port (the one a stopped server of this test had). */
async function redisOnPort(port: number): Promise<LocalRedis> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--daemonize', 'no', '--loglevel', 'notice', '--logfile', '');
  const { process } = await spawnUntilReady(
    'redis-server',
    'redis-server',
    args,
    /Ready to accept connections/,
  );
  return { url: `redis://127.0.0.1:${port}`, process };
}

function expectStoreUnavailable(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.json()).toEqual({
    error: {
      message: expect.stringMatching(/temporarily unavailable/),
      type: 'upstream_error',
      code: 'upstream_error',
      param: null,
    },
  });
}

describe('Redis down', () => {
  it('answers 503 with Retry-After at once while it is down, and 200 again once it is back', async () => {
    let redis = await startRedisServer();
    const port = Number(new URL(redis.url).port);
    const t = await buildTestApp({ env: { REDIS_URL: redis.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    apps.push(t);
    const { key } = await createFundedKey(t.app, { topUp: 1_000 });
    const balance = () =>
      t.app.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${key}` } });
    expect((await balance()).statusCode).toBe(200);

    await redis.process.stop();
    stops.push(() => redis.process.stop());
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = Date.now();
      const res = await balance();
      expectStoreUnavailable(res);
      // Fails fast: no command waits for Redis to come back.
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    // One admission attempt per request: a refusal by the store is not retried to count the request.
    const admissions = vi.spyOn(t.services.billing, 'admit');
    expectStoreUnavailable(await balance());
    expect(admissions).toHaveBeenCalledTimes(1);
    // A body refused as it is read is counted through Redis too: while Redis is down, 503 as well.
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"model":',
    });
    expectStoreUnavailable(malformed);
    expect(admissions).toHaveBeenCalledTimes(2);
    admissions.mockRestore();
    expect(t.logs().some((line) => line.msg === 'store unavailable')).toBe(true);
    expect(t.logs().some((line) => line.msg === 'request failed')).toBe(false);

    redis = await redisOnPort(port);
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await balance()).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});

describe('the SQLite store locked by another process', () => {
  it('answers 503 with Retry-After once busy_timeout passes, and 201 when the lock is gone', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gw-outage-')), 'gateway.db');
    const t = await buildTestApp({
      env: {
        MONGO_URL: undefined,
        SQLITE_PATH: path,
        SQLITE_BUSY_TIMEOUT_MS: '50',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      },
    });
    apps.push(t);
    const create = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/accounts',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { email },
      });
    const other = new DatabaseSync(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      expectStoreUnavailable(await create('locked@example.test'));
      other.exec('ROLLBACK');
      expect((await create('unlocked@example.test')).statusCode).toBe(201);
    } finally {
      other.close();
    }
  });
});

describe('S3 down', () => {
  it('answers a transcription upload 503 with Retry-After', async () => {
    const s3 = await startS3Server(mkdtempSync(join(tmpdir(), 'gw-outage-s3-')));
    let stopped = false;
    stops.push(() => (stopped ? Promise.resolve() : s3.stop()));
    const t = await buildTestApp({
      env: {
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        DEFAULT_STT_MODEL: 'demo/stt',
      },
    });
    apps.push(t);
    const { key } = await createFundedKey(t.app, { topUp: 1_000 });
    await s3.stop();
    stopped = true;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wavOfSeconds(1))], { type: 'audio/wav' }), 'a.wav');
    const request = new Request('http://localhost/v1/audio/transcriptions', { method: 'POST', body: form });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': String(request.headers.get('content-type')),
      },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expectStoreUnavailable(res);
  });
});

describe('which failures count as a store outage', () => {
  const withCause = (cause: unknown) => new Error('wrapped', { cause });
  it('recognises the clients’ connection failures, also wrapped', () => {
    const outages: unknown[] = [
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
        name: 'MaxRetriesPerRequestError',
      }),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Command timed out'),
      Object.assign(new Error('LOADING Redis is loading the dataset in memory'), { name: 'ReplyError' }),
      Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 }),
      Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 517 }),
      Object.assign(new Error('Server selection timed out'), { name: 'MongoServerSelectionError' }),
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: {} }),
      Object.assign(new Error('We encountered an internal error.'), { $fault: 'server', $metadata: {} }),
      withCause(Object.assign(new Error('x'), { name: 'MongoNetworkError' })),
      new AggregateError([new Error('Command timed out')]),
    ];
    for (const err of outages) expect(isStoreUnavailable(err), String(err)).toBe(true);
  });

  it('leaves bugs, refusals and client disconnects alone', () => {
    const others: unknown[] = [
      new Error('boom'),
      new TypeError('x is undefined'),
      Object.assign(new Error('ERR wrong number of arguments'), { name: 'ReplyError' }),
      Object.assign(new Error('UNIQUE constraint failed'), { code: 'ERR_SQLITE_ERROR', errcode: 2067 }),
      Object.assign(new Error('E11000 duplicate key'), {
        name: 'MongoServerError',
        hasErrorLabel: () => false,
      }),
      Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
      Object.assign(new Error('The operation was aborted'), { name: 'AbortError' }),
      Object.assign(new Error('NoSuchKey'), { $fault: 'client', $metadata: {} }),
      'a string',
      null,
    ];
    for (const err of others) expect(isStoreUnavailable(err), String(err)).toBe(false);
  });
});
