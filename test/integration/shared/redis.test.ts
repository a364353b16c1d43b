import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../../api/src/plugins/store-outage.ts';
import { type LocalRedis, startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { createRedis, REDIS_COMMAND_TIMEOUT_MS, type Redis } from '../../../shared/src/redis/redis.ts';

// A server of its own: the test stops it from answering (CLIENT PAUSE), which would stall every
// other test on a shared one.
let server: LocalRedis;
let admin: Redis;
let client: Redis;
const TIMEOUT_MS = 300;

beforeAll(async () => {
  server = await startRedisServer();
  admin = createRedis(server.url, { connectionName: 'admin' });
  client = createRedis(server.url);
  await Promise.all([admin.ping(), client.ping()]);
});
afterAll(async () => {
  admin?.disconnect();
  client?.disconnect();
  await server?.process.stop();
});

describe('createRedis against a server that stops answering', () => {
  it('fails a command after its timeout, as a store outage (503), and answers again after', async () => {
    // Every connection outside BullMQ has the bound; BullMQ's wait for Redis instead.
    expect(client.options.commandTimeout).toBe(REDIS_COMMAND_TIMEOUT_MS);
    const bullmq = createRedis(server.url, { forBullmq: true });
    expect(bullmq.options.commandTimeout).toBeUndefined();
    bullmq.disconnect();
    // ioredis reads the bound at each command: shortened here so the test does not wait 5 s.
    client.options.commandTimeout = TIMEOUT_MS;
    await admin.call('CLIENT', 'PAUSE', String(TIMEOUT_MS * 5), 'ALL');
    const started = performance.now();
    const error = await client.get('unanswered').then(
      () => undefined,
      (err: unknown) => err,
    );
    const ms = performance.now() - started;
    expect(String(error)).toMatch(/Command timed out/);
    // What the api answers 503 with Retry-After instead of a 500.
    expect(isStoreUnavailable(error)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(ms).toBeLessThan(TIMEOUT_MS * 3);
    await admin.call('CLIENT', 'UNPAUSE');
    await expect(client.set('after', '1')).resolves.toBe('OK');
    await expect(client.get('after')).resolves.toBe('1');
  });
});
