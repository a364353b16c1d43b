/**
 * Provider failures on the job path, through a worker process: 5xx answers are retried by BullMQ
 * with backoff (the job's attempts), so a provider that answers 500 twice and then succeeds gives
 * one delivery and one charge; one that keeps failing ends the job `failed` with a 502 for the
 * client, and a rejection of the request (400) is not retried. None of the failures is charged.
 */
import { APIError } from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { costMicros, jobIdOf, serviceOf, useMediaGateway } from '../helpers/media-gateway.ts';

const { m, user } = useMediaGateway(
  { apiEnv: { MEDIA_WAIT_TIMEOUT_MS: '15000' } },
  { WORKER_QUEUES: 'image,speech' },
);
beforeEach(() => {
  m.fakes.openai.script.reset();
});

const calls = (path: string) => m.fakes.openai.requests.filter((r) => r.url === path).length;

async function rejection(promise: Promise<unknown>): Promise<APIError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}

describe('provider failures, retried by the queue', () => {
  it('image: 500, 500, then success: one delivery, one charge', async () => {
    m.fakes.openai.script.next({ kind: 'status', status: 500 }, 2);
    const before = await m.balanceMicros(user.accountId);
    const calledBefore = calls('/v1/images/generations');
    const { data, response } = await user.client.images
      .generate({ model: 'openai/gpt-image-1', prompt: 'a comet', n: 2 })
      .withResponse();
    const jobId = jobIdOf('image', response.headers.get('x-request-id'));
    expect(data.data).toHaveLength(2);
    expect(calls('/v1/images/generations') - calledBefore).toBe(3);
    const cost = costMicros(serviceOf(data).cost);
    expect(before - (await m.balanceMicros(user.accountId))).toBe(cost);
    expect((await m.charges(user.accountId)).filter((c) => c.id === jobId)).toEqual([
      { id: jobId, amountMicros: -cost },
    ]);
    expect((await m.job(jobId))?.status).toBe('delivered');
    const bullJob = await m.gateway.services.media.queues.image.getJob(jobId);
    expect(bullJob?.attemptsMade).toBe(3);
  });

  it('speech: 503, 500, then success: one delivery, one charge', async () => {
    m.fakes.openai.script.next({ kind: 'status', status: 503 }).next({ kind: 'status', status: 500 });
    const before = await m.balanceMicros(user.accountId);
    const calledBefore = calls('/v1/audio/speech');
    const response = await user.client.audio.speech.create({
      model: 'openai/gpt-4o-mini-tts',
      voice: 'alloy',
      input: 'Third time lucky.',
    });
    const jobId = jobIdOf('speech', response.headers.get('x-request-id'));
    expect(Buffer.from(await response.arrayBuffer())[0]).toBe(0xff);
    expect(calls('/v1/audio/speech') - calledBefore).toBe(3);
    const cost = costMicros(response.headers.get('x-service-cost'));
    expect(before - (await m.balanceMicros(user.accountId))).toBe(cost);
    expect((await m.charges(user.accountId)).filter((c) => c.id === jobId)).toEqual([
      { id: jobId, amountMicros: -cost },
    ]);
  });

  it('a provider that keeps failing: 502 after the last attempt, job failed and kept, nothing charged', async () => {
    m.fakes.openai.script.always({ kind: 'status', status: 500 });
    const before = await m.balanceMicros(user.accountId);
    const charges = (await m.charges(user.accountId)).length;
    const calledBefore = calls('/v1/images/generations');
    const err = await rejection(
      user.client.images.generate({ model: 'openai/gpt-image-1', prompt: 'never' }),
    );
    expect(err.status).toBe(502);
    expect(err.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    const jobId = jobIdOf('image', err.headers?.get('x-request-id'));
    expect(calls('/v1/images/generations') - calledBefore).toBe(3);
    expect((await m.job(jobId))?.status).toBe('failed');
    expect(await m.bullJobEnded('image', jobId)).toBe('failed');
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    expect(await m.charges(user.accountId)).toHaveLength(charges);
  });

  it('a provider rejecting the request (400) is not retried and charges nothing', async () => {
    m.fakes.openai.script.next({ kind: 'status', status: 400 });
    const before = await m.balanceMicros(user.accountId);
    const calledBefore = calls('/v1/images/generations');
    const err = await rejection(user.client.images.generate({ model: 'openai/gpt-image-1', prompt: 'odd' }));
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error' });
    const jobId = jobIdOf('image', err.headers?.get('x-request-id'));
    expect(calls('/v1/images/generations') - calledBefore).toBe(1);
    expect((await m.job(jobId))?.status).toBe('failed');
    expect(await m.bullJobEnded('image', jobId)).toBe('failed');
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    expect((await m.charges(user.accountId)).map((c) => c.id)).not.toContain(jobId);
  });

  it('what the model cannot do is refused (400) before any provider call, and not charged', async () => {
    const before = await m.balanceMicros(user.accountId);
    const calledBefore = calls('/v1/images/generations');
    // The gateway allows n up to 4; dall-e-3 makes one image per request.
    const err = await rejection(
      user.client.images.generate({ model: 'openai/dall-e-3', prompt: 'twins', n: 2 }),
    );
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error' });
    expect(calls('/v1/images/generations')).toBe(calledBefore);
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });
});
