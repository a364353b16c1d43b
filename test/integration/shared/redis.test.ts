import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { createRedis, type Redis } from '../../../shared/src/redis/redis.ts';

// A server of its own: the test stops it from answering (CLIENT PAUSE), which would stall every
// other test on a shared one.
let server: LocalRedis;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.process.stop();
});

const TIMEOUT_MS = 300;

async function settledWithin(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  return { error, ms: performance.now() - started };
}

describe('createRedis with batched writes', () => {
  it('writes the commands of one turn of the event loop in one write, and each one alone without', async () => {
    const batchedConnection = createRedis(server.url, { autoPipelining: true });
    const plain = createRedis(server.url);
    try {
      await Promise.all([batchedConnection.ping(), plain.ping()]);
      expect(await writesFor(batchedConnection, (redis) => incrementFiveTimes(redis, 'counted'))).toBe(1);
      expect(await writesFor(plain, (redis) => incrementFiveTimes(redis, 'counted'))).toBe(5);
      expect(await plain.get('counted')).toBe('10');
    } finally {
      batchedConnection.disconnect();
      plain.disconnect();
    }
  });
});

function incrementFiveTimes(redis: Redis, key: string): Promise<unknown> {
  return Promise.all(Array.from({ length: 5 }, () => redis.incr(key)));
}

/** Socket writes the connection makes while `work` runs. */
async function writesFor(redis: Redis, work: (redis: Redis) => Promise<unknown>): Promise<number> {
  const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
  const write = stream.write;
  let writes = 0;
  stream.write = (...args: unknown[]) => {
    writes += 1;
    return write.apply(stream, args);
  };
  try {
    await work(redis);
  } finally {
    stream.write = write;
  }
  return writes;
}

describe('createRedis with batched writes, against a server that stops answering', () => {
  let admin: Redis;
  let batched: Redis;
  beforeAll(async () => {
    admin = createRedis(server.url, { connectionName: 'admin' });
    batched = createRedis(server.url, { autoPipelining: true, commandTimeoutMs: TIMEOUT_MS });
    await Promise.all([admin.ping(), batched.ping()]);
  });
  afterAll(() => {
    admin.disconnect();
    batched.disconnect();
  });

  it('fails every command within two timeouts (a batch waits for the one in flight), then recovers', async () => {
    await admin.call('CLIENT', 'PAUSE', String(TIMEOUT_MS * 5), 'ALL');
    const first = settledWithin(batched.get('first'));
    // Issued while the first batch is unanswered: it leaves when that batch has timed out.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS / 3));
    const second = settledWithin(batched.get('second'));
    const [a, b] = await Promise.all([first, second]);
    expect(String(a.error)).toMatch(/timed out/i);
    expect(String(b.error)).toMatch(/timed out/i);
    expect(a.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(a.ms).toBeLessThan(TIMEOUT_MS * 2);
    // Behind the first batch: longer than one timeout, never more than two.
    expect(b.ms).toBeGreaterThan(TIMEOUT_MS);
    expect(b.ms).toBeLessThan(TIMEOUT_MS * 2 + 200);
    // When the server answers again, so does the connection.
    await admin.call('CLIENT', 'UNPAUSE');
    await expect(batched.set('after', '1')).resolves.toBe('OK');
    await expect(batched.get('after')).resolves.toBe('1');
  });
});
