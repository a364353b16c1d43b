/**
 * The api's waiter for synchronous media jobs, over real Redis and BullMQ: it listens before the
 * job is started, is woken by the worker's completion event and hands that event's return value to
 * `read`; without an event it polls. While it waits it holds the job's waiter lease in Redis, taken
 * before the job starts and renewed, so a worker can tell that someone waits for the job.
 */
import { type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CompletionHint, JobWaiter, REQUEUE_AFTER_MS } from '../../../api/src/media/job-waiter.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import { WaiterLeases } from '../../../shared/src/media-jobs/waiter-lease.ts';
import { createRedis } from '../../../shared/src/redis/redis.ts';
import { testConfig } from '../../helpers/test-config.ts';

const config = testConfig();
const prefix = config.queues.bullmqPrefix;
let connection: Redis;
let queue: Queue;
let waiter: JobWaiter;
let worker: Worker;
let commands: Redis;
let leases: WaiterLeases;
/** Short, so that a lease not renewed would lapse within a test. */
const LEASE_MS = 600;
const answers = new Map<string, unknown>();

beforeAll(async () => {
  connection = createRedis(config.redis, { forBullmq: true });
  queue = new Queue('image', { connection, prefix });
  commands = createRedis(config.redis);
  leases = new WaiterLeases(commands, { prefix, leaseMs: LEASE_MS });
  waiter = new JobWaiter(config.redis, prefix, ['image'], leases);
  await waiter.start();
  const workerConnection = createRedis(config.redis, { forBullmq: true });
  worker = new Worker('image', async (job: Job) => answers.get(job.id as string), {
    connection: workerConnection,
    prefix,
  });
  await worker.waitUntilReady();
});

afterAll(async () => {
  await worker.close();
  await waiter.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.quit();
  await commands.quit();
});

const job = (id: string, status: MediaJob['status']) => ({ id, status }) as MediaJob;

describe('JobWaiter', () => {
  it('starts the job after listening, reads only when woken, and passes the return value on', async () => {
    const returned = { status: 'completed', result: { kind: 'image', images: [] } };
    answers.set('w1', returned);
    const order: string[] = [];
    const hints: CompletionHint[] = [];
    const outcome = await waiter.waitForEnd('w1', {
      start: async () => {
        order.push('start');
        await queue.add('image.generate', { jobId: 'w1' }, { jobId: 'w1' });
      },
      read: async (hint) => {
        order.push('read');
        hints.push(hint);
        return job('w1', 'completed');
      },
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({ ended: job('w1', 'completed') });
    expect(order).toEqual(['start', 'read']);
    expect(hints).toEqual([returned]);
  });

  it('a return value that is not an object gives no hint, and a running job is waited for', async () => {
    answers.set('w2', 'done');
    const hints: CompletionHint[] = [];
    let reads = 0;
    const outcome = await waiter.waitForEnd('w2', {
      start: async () => {
        await queue.add('image.generate', { jobId: 'w2' }, { jobId: 'w2', delay: 200 });
      },
      read: async (hint) => {
        hints.push(hint);
        reads += 1;
        return job('w2', hint === undefined && reads === 1 ? 'running' : 'completed');
      },
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({ ended: job('w2', 'completed') });
    expect(hints.at(-1)).toBeUndefined();
  });

  it('a failing start ends the wait with its error', async () => {
    const boom = new Error('enqueue failed');
    await expect(
      waiter.waitForEnd('w3', {
        start: () => Promise.reject(boom),
        read: async () => null,
        timeoutMs: 5_000,
        signal: new AbortController().signal,
      }),
    ).rejects.toBe(boom);
  });

  /** Waits `timeoutMs` for a job that stays queued; the outcome and how often it was read. */
  const waitForQueued = async (jobId: string, timeoutMs: number) => {
    let reads = 0;
    const outcome = await waiter.waitForEnd(jobId, {
      start: async () => undefined,
      read: async () => {
        reads += 1;
        return job(jobId, 'queued');
      },
      timeoutMs,
      signal: new AbortController().signal,
    });
    return { outcome, reads };
  };

  it('times out when the job never ends, having read it only on the fallback poll', async () => {
    const started = Date.now();
    const { outcome, reads } = await waitForQueued('w4', 300);
    expect(outcome).toEqual({ ended: null, reason: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(reads).toBe(1);
  });

  it('reads once at the deadline when its timer fires before the clock shows the deadline passed', async () => {
    // A timer counts from the event loop's clock, read when its turn began, so it can fire a few
    // milliseconds before Date.now() says its delay passed: here the clock runs 20 ms behind
    // from 150 ms on, so the 200 ms timer fires when Date.now() shows 180.
    const realNow = Date.now.bind(Date);
    const started = realNow();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => {
      const now = realNow();
      return now - started >= 150 ? now - 20 : now;
    });
    try {
      const { outcome, reads } = await waitForQueued('w4b', 200);
      expect(outcome).toEqual({ ended: null, reason: 'timeout' });
      expect(reads).toBe(1);
    } finally {
      clock.mockRestore();
    }
  });

  it('an aborted signal ends the wait at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const outcome = await waiter.waitForEnd('w5', {
      start: async () => undefined,
      read: async () => job('w5', 'running'),
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    expect(outcome).toEqual({ ended: null, reason: 'aborted' });
  });

  it('queues a job again that stays queued (its queue entry lost with Redis), and it then completes', async () => {
    answers.set('w6', { status: 'completed' });
    let starts = 0;
    let done = false;
    const started = Date.now();
    const outcome = await waiter.waitForEnd('w6', {
      start: async () => {
        starts += 1;
        // The first enqueue is acknowledged but lost; the next one reaches the queue.
        if (starts > 1) await queue.add('image.generate', { jobId: 'w6' }, { jobId: 'w6' });
      },
      read: async (hint) => {
        if (hint !== undefined) done = true;
        return job('w6', done ? 'completed' : 'queued');
      },
      timeoutMs: REQUEUE_AFTER_MS + 5_000,
      signal: new AbortController().signal,
    });
    expect(outcome).toMatchObject({ ended: { status: 'completed' } });
    expect(starts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEUE_AFTER_MS);
  });

  it('holds the job’s waiter lease from before its start, renewed past its length, until the wait ends', async () => {
    const seen: boolean[] = [];
    const controller = new AbortController();
    const outcome = waiter.waitForEnd('w7', {
      start: async () => {
        seen.push(await leases.isAwaited('w7'));
      },
      read: async () => job('w7', 'running'),
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    seen.push(await leases.isAwaited('w7'));
    controller.abort();
    await outcome;
    expect(seen).toEqual([true, true]);
    expect(await leases.isAwaited('w7')).toBe(false);
  });

  it('a lease its process no longer renews lapses within its length (the api was killed)', async () => {
    const dying = new WaiterLeases(commands, { prefix, leaseMs: LEASE_MS });
    await dying.hold('w8');
    dying.stop();
    expect(await leases.isAwaited('w8')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
    expect(await leases.isAwaited('w8')).toBe(false);
  });

  it('a lease Redis lost while its api waits is back by the time a worker has looked twice', async () => {
    const controller = new AbortController();
    const outcome = waiter.waitForEnd('w9', {
      start: async () => undefined,
      read: async () => job('w9', 'running'),
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Redis restarted empty, say: the lease is gone, its api is not.
    await commands.del(`${prefix}:media-waiter:w9`);
    const worker = new WaiterLeases(commands, { prefix, leaseMs: LEASE_MS });
    expect(await worker.isAwaited('w9')).toBe(true);
    controller.abort();
    await outcome;
  });
});
