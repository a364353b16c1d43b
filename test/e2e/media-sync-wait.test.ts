/**
 * The api's bounded wait for a synchronous media job (image, speech), with a worker process and a
 * slow provider. When the wait ends first — its timeout (MEDIA_WAIT_TIMEOUT_MS, short here) or the
 * client going away — the client's request ends in an error, the job is cancelled, and nothing is
 * ever charged for it, even after the worker finishes the provider call later: its media is
 * discarded.
 */
import { APIError, APIUserAbortError } from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { jobIdOf, useMediaGateway, waitUntil } from '../helpers/media-gateway.ts';

const WAIT_MS = 1_500;
const SLOW = { kind: 'slow', delayMs: 3_500 } as const;

const { m, user } = useMediaGateway(
  { apiEnv: { MEDIA_WAIT_TIMEOUT_MS: String(WAIT_MS) } },
  { WORKER_QUEUES: 'image,speech' },
);
beforeEach(() => {
  m.fakes.openai.script.reset();
});

const calls = (path: string) => m.fakes.openai.requests.filter((r) => r.url === path).length;

/** After the worker finished the job: still cancelled, its media gone, nothing charged. */
async function expectNothingCharged(
  accountId: string,
  queue: 'image' | 'speech',
  jobId: string,
  before: bigint,
): Promise<void> {
  expect(await m.bullJobEnded(queue, jobId)).toBe('completed');
  const bullJob = await m.gateway.services.media.queues[queue].getJob(jobId);
  expect(bullJob?.returnvalue).toEqual({ status: 'discarded' });
  expect((await m.job(jobId))?.status).toBe('cancelled');
  // Nothing stored under the job's folder (the worker deleted what its attempt stored).
  const stored: string[] = [];
  for await (const page of m.gateway.services.media.storage.list(`jobs/${jobId}/`))
    stored.push(...page.map((object) => object.key));
  expect(stored).toEqual([]);
  // Nor does a short-lived Redis copy of its media stay behind (media-handoff.ts).
  const copies = await m.gateway.connections.redis.keys(`${m.gateway.config.queues.prefix}:media-handoff:*`);
  expect(copies).toEqual([]);
  expect(await m.balanceMicros(accountId)).toBe(before);
  expect((await m.charges(accountId)).map((c) => c.id)).not.toContain(jobId);
  expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
}

describe('the synchronous wait ends before the job', () => {
  it('timeout: 504 upstream_timeout, job cancelled, not charged when the worker finishes later', async () => {
    m.fakes.openai.script.next(SLOW);
    const before = await m.balanceMicros(user.accountId);
    const started = Date.now();
    const err = await user.client.images.generate({ model: 'openai/gpt-image-1', prompt: 'late' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    const apiError = err as APIError;
    expect(apiError.status).toBe(504);
    expect(apiError.error).toMatchObject({ type: 'upstream_error', code: 'upstream_timeout' });
    expect(Date.now() - started).toBeLessThan(SLOW.delayMs);
    const jobId = jobIdOf('image', apiError.headers?.get('x-request-id'));
    expect((await m.job(jobId))?.status).toBe('cancelled');
    expect(calls('/v1/images/generations')).toBe(1);

    await expectNothingCharged(user.accountId, 'image', jobId, before);
  });

  it('client gone: the aborted request cancels the job; not charged when the worker finishes later', async () => {
    // 100 IRT. Whether the request's hold still counts: a bounded hold of the whole wallet fits only
    // when nothing else is held (admitted, then released at once).
    const poor = await m.fundedClient(100);
    const balanceStatus = async () => {
      const probe = `probe_${Math.random().toString(36).slice(2)}`;
      const { outcome } = await m.gateway.services.billing.admit({
        requestId: probe,
        accountId: poor.accountId,
        keyId: poor.keyId,
        rateLimit: 3000,
        monthlyCapMicros: null,
        modelAllowed: true,
        estimateMicros: 100_000_000n,
        bounded: true,
      });
      await m.gateway.services.billing.release({
        requestId: probe,
        accountId: poor.accountId,
        keyId: poor.keyId,
      });
      return outcome === 'admitted' ? 200 : 402;
    };
    m.fakes.openai.script.next(SLOW);
    const before = await m.balanceMicros(poor.accountId);
    const calledBefore = calls('/v1/audio/speech');
    const abort = new AbortController();
    const started = Date.now();
    const pending = poor.client.audio.speech
      .create(
        { model: 'openai/tts-1', voice: 'nova', input: 'Are you still there?' },
        { signal: abort.signal },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await waitUntil(() => calls('/v1/audio/speech') > calledBefore);
    const jobs = await m.gateway.services.media.jobs.listOwned(poor.accountId, 'speech', 10);
    const jobId = jobs.find((job) => job.status === 'running')?.id ?? '';
    expect(jobId).toMatch(/^tts_/);
    expect(await balanceStatus()).toBe(402); // the hold of the request in flight counts
    abort.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    await waitUntil(async () => (await m.job(jobId))?.status === 'cancelled', 5_000);
    // Cancelled by the client's going away, not by the end of the api's wait.
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    await waitUntil(async () => (await balanceStatus()) === 200, 5_000); // the hold was released

    await expectNothingCharged(poor.accountId, 'speech', jobId, before);
  });

  it('a later request on the same key is served and charged normally', async () => {
    const before = await m.balanceMicros(user.accountId);
    const result = await user.client.images.generate({ model: 'openai/gpt-image-1', prompt: 'on time' });
    expect(result.data).toHaveLength(1);
    expect(await m.balanceMicros(user.accountId)).toBeLessThan(before);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });
});
