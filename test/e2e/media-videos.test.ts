/**
 * Videos end to end: `POST /v1/videos` (fetch, JSON) answers 202, a worker process renders through
 * the fake OpenAI (Sora) or Google (Veo) upstream or the demo provider, and the SDK's
 * `videos.retrieve` / `videos.downloadContent` poll and download. The wallet is charged exactly
 * `service.cost`, once, and only after delivery; a failed render charges nothing. A video belongs to
 * the account that created it.
 */
import { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_FAILURE, FAIL_RENDER_TRIGGER } from '../fakes/openai-media-videos.ts';
import {
  costMicros,
  type MediaClient,
  type MediaGateway,
  serviceOf,
  startMediaGateway,
} from '../helpers/media-gateway.ts';
import { createVideo, pollVideo, type VideoRecord, videoRequest } from '../helpers/media-videos.ts';

const SORA_POLLS = 3;
let m: MediaGateway;
let user: MediaClient;
let stranger: MediaClient;

beforeAll(async () => {
  m = await startMediaGateway({ openai: { completeAfterPolls: SORA_POLLS }, google: { pollsUntilDone: 2 } });
  await m.startWorker({ WORKER_QUEUES: 'video', VIDEO_POLL_INTERVAL_MS: '100', DEMO_VIDEO_RENDER_MS: '500' });
  [user, stranger] = await Promise.all([m.fundedClient(), m.fundedClient()]);
});
afterAll(async () => {
  await m?.close();
});

/** Sora polls the fake has answered so far (all renders). */
const soraPolls = () => m.fakes.openai.requests.filter((r) => /^\/v1\/videos\/[^/]+$/.test(r.url)).length;

/** Checks a completed video and its download (full, a range, an unsatisfiable range). */
async function checkDelivered(video: VideoRecord, before: bigint): Promise<Buffer> {
  expect(video.status).toBe('completed');
  expect(video.progress).toBe(100);
  expect(video.url).toBe(`${m.gateway.origin}/v1/videos/${video.id}/content`);
  const service = serviceOf(video);
  expect(service.currency).toBe('IRT');
  expect(service.cost).toBeGreaterThan(0);
  expect(before - (await m.balanceMicros(user.accountId))).toBe(costMicros(service.cost));
  expect(await m.charges(user.accountId)).toContainEqual({
    id: video.id,
    amountMicros: -costMicros(service.cost),
  });

  const content = await user.client.videos.downloadContent(video.id);
  expect(content.headers.get('content-type')).toBe('video/mp4');
  const mp4 = Buffer.from(await content.arrayBuffer());
  expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');

  const partial = await videoRequest(m, user.key, 'GET', `/${video.id}/content`, { range: 'bytes=4-11' });
  expect(partial.status).toBe(206);
  expect(partial.headers.get('content-range')).toBe(`bytes 4-11/${mp4.length}`);
  expect(Buffer.from(await partial.arrayBuffer())).toEqual(mp4.subarray(4, 12));

  const outside = await videoRequest(m, user.key, 'GET', `/${video.id}/content`, {
    range: `bytes=${mp4.length + 10}-`,
  });
  expect(outside.status).toBe(416);
  expect(outside.headers.get('content-range')).toBe(`bytes */${mp4.length}`);
  expect(await outside.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  return mp4;
}

describe('video renders through a worker process', () => {
  it('Sora: 202, uncharged while in progress, completed, charged service.cost once, downloadable', async () => {
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, {
      model: 'openai/sora-2',
      prompt: 'a red kite over the sea',
      duration: 4,
      aspect_ratio: '16:9',
      resolution: '720p',
    });
    expect(created).toMatchObject({
      object: 'video',
      model: 'openai/sora-2',
      status: 'in_progress',
      seconds: 4,
    });
    expect(created.aspect_ratio).toBe('16:9');
    expect(created).not.toHaveProperty('service');
    expect(created).not.toHaveProperty('url');
    await expect(user.client.videos.downloadContent(created.id)).rejects.toBeInstanceOf(NotFoundError);

    // While the fake has not yet answered `completed`, nothing can have been charged.
    let sawInProgress = false;
    for (let i = 0; i < 200 && !sawInProgress; i += 1) {
      const balance = await m.balanceMicros(user.accountId);
      const video = (await user.client.videos.retrieve(created.id)) as unknown as VideoRecord;
      if (soraPolls() >= SORA_POLLS) break;
      expect(balance).toBe(before);
      expect(video.status).toBe('in_progress');
      expect(video).not.toHaveProperty('service');
      sawInProgress = soraPolls() >= 1;
      if (!sawInProgress) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(sawInProgress).toBe(true);

    const done = await pollVideo(user.client, created.id);
    await checkDelivered(done, before);
    const submit = m.fakes.openai.requests.find((r) => r.method === 'POST' && r.url === '/v1/videos');
    const form = submit?.body.toString('latin1') ?? '';
    expect(form).toMatch(/name="seconds"\r\n\r\n4\r\n/);
    expect(form).toMatch(/name="size"\r\n\r\n1280x720\r\n/);
  });

  it('Veo on the Google fake: the long-running operation polled to completion', async () => {
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, {
      model: 'google/veo-3',
      prompt: 'a waterfall',
      duration: 8,
    });
    const done = await pollVideo(user.client, created.id);
    expect(done.seconds).toBe(8);
    await checkDelivered(done, before);
    expect(m.fakes.google.requests.some((r) => r.url.endsWith(':predictLongRunning'))).toBe(true);
    expect(m.fakes.google.requests.some((r) => /\/operations\//.test(r.url))).toBe(true);
  });

  it('the demo provider renders a playable MP4 offline', async () => {
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, { model: 'demo/video', prompt: 'waves', duration: 3 });
    const done = await pollVideo(user.client, created.id);
    await checkDelivered(done, before);
  });

  it('a render that fails ends failed with error.message and charges nothing', async () => {
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, {
      model: 'openai/sora-2',
      prompt: `a storm ${FAIL_RENDER_TRIGGER}`,
      duration: 4,
    });
    const failed = await pollVideo(user.client, created.id, 'failed');
    expect(failed.error?.message).toContain(DEFAULT_RENDER_FAILURE);
    expect(failed).not.toHaveProperty('service');
    expect(failed).not.toHaveProperty('url');
    await expect(user.client.videos.downloadContent(created.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    expect((await m.charges(user.accountId)).map((c) => c.id)).not.toContain(created.id);
  });
});

describe('video ownership, lookup, list and delete', () => {
  let mine: VideoRecord;
  beforeAll(async () => {
    const created = await createVideo(m, user.key, { model: 'demo/video', prompt: 'mine', duration: 2 });
    mine = await pollVideo(user.client, created.id);
  });

  it('another account gets 404 for GET, content and DELETE; the owner still has it', async () => {
    await expect(stranger.client.videos.retrieve(mine.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(stranger.client.videos.downloadContent(mine.id)).rejects.toBeInstanceOf(NotFoundError);
    const deleted = await videoRequest(m, stranger.key, 'DELETE', `/${mine.id}`);
    expect(deleted.status).toBe(404);
    expect(((await deleted.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((await user.client.videos.retrieve(mine.id)).status).toBe('completed');
  });

  it('unknown ids answer 404 for GET, content and DELETE', async () => {
    for (const id of ['video_doesnotexist', 'img_abc', '..%2Fetc']) {
      await expect(user.client.videos.retrieve(id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(user.client.videos.downloadContent(id)).rejects.toBeInstanceOf(NotFoundError);
      expect((await videoRequest(m, user.key, 'DELETE', `/${id}`)).status).toBe(404);
    }
  });

  it('lists the account’s own videos only, newest first', async () => {
    const list = (await (await videoRequest(m, user.key, 'GET', '')).json()) as {
      object: string;
      data: VideoRecord[];
    };
    expect(list.object).toBe('list');
    expect(list.data[0]?.id).toBe(mine.id);
    expect(list.data.length).toBeGreaterThanOrEqual(5);
    const theirs = (await (await videoRequest(m, stranger.key, 'GET', '')).json()) as { data: VideoRecord[] };
    expect(theirs.data).toEqual([]);
  });

  it('refuses to delete a render in progress (409), deletes a finished one without a refund', async () => {
    const running = await createVideo(m, user.key, { model: 'demo/video', prompt: 'slow', duration: 2 });
    expect((await videoRequest(m, user.key, 'DELETE', `/${running.id}`)).status).toBe(409);
    await pollVideo(user.client, running.id);

    const balance = await m.balanceMicros(user.accountId);
    const deleted = await user.client.videos.delete(mine.id);
    expect(deleted).toMatchObject({ id: mine.id, object: 'video.deleted', deleted: true });
    await expect(user.client.videos.retrieve(mine.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(user.client.videos.downloadContent(mine.id)).rejects.toBeInstanceOf(NotFoundError);
    const list = (await (await videoRequest(m, user.key, 'GET', '')).json()) as { data: VideoRecord[] };
    expect(list.data.map((v) => v.id)).not.toContain(mine.id);
    expect(await m.balanceMicros(user.accountId)).toBe(balance);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });
});
