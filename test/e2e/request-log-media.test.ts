/**
 * The request log of media requests (docs/request-log.md): a video's record is written at its 202
 * and completed by the worker when the render ends (status, cost: the video's `service.cost`); a
 * synchronous image's record carries its cost and provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAIL_RENDER_TRIGGER } from '../fakes/openai-media-videos.ts';
import {
  type MediaClient,
  type MediaGateway,
  serviceOf,
  startMediaGateway,
} from '../helpers/media-gateway.ts';
import { pollVideo, type VideoRecord, videoRequest } from '../helpers/media-videos.ts';

let m: MediaGateway;
let user: MediaClient;

beforeAll(async () => {
  m = await startMediaGateway({ openai: { completeAfterPolls: 2 } });
  await m.startWorker({ WORKER_QUEUES: 'video,image', VIDEO_POLL_INTERVAL_MS: '100' });
  user = await m.fundedClient();
});
afterAll(async () => {
  await m?.close();
});

async function recordOf(id: string): Promise<Record<string, unknown>> {
  await m.gateway.services.requestLog.flush();
  const response = await fetch(`${m.gateway.origin}/v1/requests/${id}`, {
    headers: { authorization: `Bearer ${user.key}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Polls the record until `done` holds (the worker completes it after the render). */
async function recordWhen(id: string, done: (record: Record<string, unknown>) => boolean) {
  let record = await recordOf(id);
  for (let i = 0; i < 100 && !done(record); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    record = await recordOf(id);
  }
  return record;
}

async function startVideo(prompt: string): Promise<{ requestId: string; video: VideoRecord }> {
  const response = await videoRequest(
    m,
    user.key,
    'POST',
    '',
    {},
    {
      model: 'openai/sora-2',
      prompt,
      duration: 4,
    },
  );
  expect(response.status).toBe(202);
  return {
    requestId: response.headers.get('x-request-id') as string,
    video: (await response.json()) as VideoRecord,
  };
}

describe('video records', () => {
  it('written at the 202, completed with the render’s cost', async () => {
    const { requestId, video } = await startVideo('a red kite');
    const done = await pollVideo(user.client, video.id);
    const record = await recordWhen(requestId, (r) => r.status === 200);
    expect(record).toMatchObject({
      id: requestId,
      endpoint: 'video',
      path: '/v1/videos',
      status: 200,
      outcome: 'completed',
      error_code: null,
      model: 'openai/sora-2',
      provider: 'openai',
      // The channel that accepted the render (its operation's), set by the worker.
      channel_id: 'ch_env_openai',
      cost: serviceOf(done).cost,
    });
    expect(record.cost).toBeGreaterThan(0);
  });

  it('a render that fails: the record is failed, nothing charged', async () => {
    const { requestId, video } = await startVideo(`a storm ${FAIL_RENDER_TRIGGER}`);
    await pollVideo(user.client, video.id, 'failed');
    const record = await recordWhen(requestId, (r) => r.outcome === 'failed');
    expect(record).toMatchObject({ outcome: 'failed', cost: 0, endpoint: 'video' });
    expect(Number(record.status)).toBeGreaterThanOrEqual(400);
    expect(record.error_code).not.toBeNull();
  });
});

describe('image records', () => {
  it('the delivered image’s cost and provider', async () => {
    const response = await fetch(`${m.gateway.origin}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-image-1', prompt: 'a cat', n: 1 }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    const record = await recordOf(response.headers.get('x-request-id') as string);
    expect(record).toMatchObject({
      endpoint: 'images',
      status: 200,
      outcome: 'completed',
      cost: serviceOf(body).cost,
      provider: 'openai',
    });
  });
});
