/** The workers' short-lived Redis copies of small media, over a real Redis. */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaHandoff, HANDOFF_TTL_MS } from '../../../../shared/src/media-jobs/media-handoff.ts';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { testConfig } from '../../../helpers/test-config.ts';

const config = testConfig();
const prefix = config.queues.prefix;
let redis: Redis;

beforeAll(() => {
  redis = createRedis(config.redis);
});
afterAll(async () => {
  await redis.quit();
});

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

describe('media handoff', () => {
  it('a copy is taken once, byte for byte, and expires on its own if nobody takes it', async () => {
    const handoff = createMediaHandoff(redis, { prefix, maxBytes: 1024, logger: captureLogger().logger });
    const png = bytes(1024);
    const name = await handoff.offer(png);
    expect(name).toMatch(/^[\w-]{22}$/);
    const ttl = await redis.pttl(`${prefix}:media-handoff:${name}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HANDOFF_TTL_MS);
    expect(await handoff.take(name as string)).toEqual(Buffer.from(png));
    expect(await handoff.take(name as string)).toBeNull();
  });

  it('each copy gets a name of its own, even for the same bytes', async () => {
    const handoff = createMediaHandoff(redis, { prefix, maxBytes: 1024, logger: captureLogger().logger });
    const [a, b] = await Promise.all([handoff.offer(bytes(10)), handoff.offer(bytes(10))]);
    expect(a).not.toBe(b);
  });

  it('makes no copy over maxBytes, of nothing, or with maxBytes 0', async () => {
    const small = createMediaHandoff(redis, { prefix, maxBytes: 100, logger: captureLogger().logger });
    expect(await small.offer(bytes(101))).toBeNull();
    expect(await small.offer(bytes(0))).toBeNull();
    const off = createMediaHandoff(redis, { prefix, maxBytes: 0, logger: captureLogger().logger });
    expect(await off.offer(bytes(1))).toBeNull();
  });

  it('takeOr answers the copy when there is one, else what the fallback reads', async () => {
    const handoff = createMediaHandoff(redis, { prefix, maxBytes: 1024, logger: captureLogger().logger });
    const stored = Uint8Array.from([9, 9, 9]);
    let reads = 0;
    const readStored = async () => {
      reads += 1;
      return stored;
    };
    const name = (await handoff.offer(bytes(4))) as string;
    expect(await handoff.takeOr(name, readStored)).toEqual(Buffer.from(bytes(4)));
    expect(reads).toBe(0);
    // Taken already (or expired), no copy made, no name recorded: the stored object.
    expect(await handoff.takeOr(name, readStored)).toEqual(stored);
    expect(await handoff.takeOr(undefined, readStored)).toEqual(stored);
    expect(reads).toBe(2);
  });

  it('drop deletes copies nobody will take', async () => {
    const handoff = createMediaHandoff(redis, { prefix, maxBytes: 1024, logger: captureLogger().logger });
    const names = await Promise.all([handoff.offer(bytes(5)), handoff.offer(bytes(6))]);
    await handoff.drop(names as string[]);
    for (const name of names) expect(await handoff.take(name as string)).toBeNull();
    await handoff.drop([]);
  });

  it('Redis trouble makes no copy and takes none, and never throws: S3 is read instead', async () => {
    const gone = createRedis(config.redis);
    await gone.quit();
    const { logger, lines } = captureLogger();
    const handoff = createMediaHandoff(gone, { prefix, maxBytes: 1024, logger });
    expect(await handoff.offer(bytes(5))).toBeNull();
    expect(await handoff.take('anything')).toBeNull();
    expect(await handoff.takeOr('anything', async () => Uint8Array.from([1]))).toEqual(Uint8Array.from([1]));
    await expect(handoff.drop(['anything'])).resolves.toBeUndefined();
    expect(lines().filter((line) => line.level === 40)).toHaveLength(4);
  });
});
