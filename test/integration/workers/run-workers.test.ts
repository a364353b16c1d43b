import { type Job, Queue, QueueEvents, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_JOB_OPTIONS } from '../../../shared/src/jobs/job-catalogue.ts';
import { createRedis } from '../../../shared/src/redis/redis.ts';
import type { ProcessorTable } from '../../../workers/src/processors/processor-table.ts';
import { closeWorkers, runWorkers } from '../../../workers/src/run-workers.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { testConfig } from '../../helpers/test-config.ts';

const config = testConfig();
let connection: Redis;
let queue: Queue;
let events: QueueEvents;

beforeAll(async () => {
  connection = createRedis(config.redis, { forBullmq: true });
  const defaultJobOptions = { ...QUEUE_JOB_OPTIONS.image, backoff: { type: 'fixed', delay: 10 } };
  queue = new Queue('image', { connection, prefix: config.queues.bullmqPrefix, defaultJobOptions });
  const eventsConnection = createRedis(config.redis, { forBullmq: true });
  events = new QueueEvents('image', { connection: eventsConnection, prefix: config.queues.bullmqPrefix });
  await events.waitUntilReady();
});

afterAll(async () => {
  await events.close();
  await events.disconnect();
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.quit();
});

function start(processors: ProcessorTable) {
  return runWorkers({
    connection,
    prefix: config.queues.bullmqPrefix,
    queues: ['image'],
    concurrency: config.worker.concurrency,
    processors,
    logger: captureLogger().logger,
  });
}

describe('runWorkers', () => {
  it('dispatches a job to the processor registered for its name', async () => {
    const workers = start({ image: { 'image.echo': async (job: Job) => ({ echoed: job.data.value }) } });
    const job = await queue.add('image.echo', { value: 42 });
    await expect(job.waitUntilFinished(events, 10_000)).resolves.toEqual({ echoed: 42 });
    await closeWorkers(workers);
  });

  it('fails a job without a processor at once, without retries, and keeps it', async () => {
    const workers = start({});
    const job = await queue.add('image.unknown', { value: 1 });
    await expect(job.waitUntilFinished(events, 10_000)).rejects.toThrow(
      /no processor for job "image.unknown"/,
    );
    const failed = await queue.getJob(job.id as string);
    expect(failed?.attemptsMade).toBe(1);
    expect(await failed?.getState()).toBe('failed');
    await closeWorkers(workers);
  });

  it('retries ordinary errors and stops on UnrecoverableError', async () => {
    let calls = 0;
    const workers = start({
      image: {
        'image.flaky': async () => {
          calls += 1;
          if (calls < 3) throw new Error('provider 503');
          return 'ok';
        },
        'image.rejected': async () => {
          throw new UnrecoverableError('provider said 400');
        },
      },
    });
    const flaky = await queue.add('image.flaky', {});
    await expect(flaky.waitUntilFinished(events, 10_000)).resolves.toBe('ok');
    expect(calls).toBe(3);
    const rejected = await queue.add('image.rejected', {});
    await expect(rejected.waitUntilFinished(events, 10_000)).rejects.toThrow('provider said 400');
    expect((await queue.getJob(rejected.id as string))?.attemptsMade).toBe(1);
    await closeWorkers(workers);
  });

  it('lets an active job finish when the worker closes', async () => {
    let finished = false;
    const workers = start({
      image: {
        'image.slow': async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          finished = true;
          return 'done';
        },
      },
    });
    const job = await queue.add('image.slow', {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closeWorkers(workers);
    expect(finished).toBe(true);
    expect(await (await queue.getJob(job.id as string))?.getState()).toBe('completed');
  });
});
