/**
 * Media jobs through API channels: a worker process routes images and videos through a channel
 * made by the operator API (its own fake on its own port, before the environment key's); a video
 * records the channel that accepted it and is polled and downloaded through it after it is
 * disabled; deleting a channel with a render in flight answers 409 unless forced, which fails the
 * render uncharged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenAIMediaUpstream, startOpenAIMediaUpstream } from '../fakes/openai-media-upstream.ts';
import { DEFAULT_FAKE_KEY } from '../fakes/openai-upstream.ts';
import { admin, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type MediaClient, type MediaGateway, startMediaGateway } from '../helpers/media-gateway.ts';
import { createVideo, pollVideo, videoRequest } from '../helpers/media-videos.ts';

let m: MediaGateway;
let user: MediaClient;
let viaChannel: OpenAIMediaUpstream;
let slow: OpenAIMediaUpstream;

beforeAll(async () => {
  m = await startMediaGateway({ openai: { completeAfterPolls: 3 } });
  viaChannel = await startOpenAIMediaUpstream({ completeAfterPolls: 4 });
  slow = await startOpenAIMediaUpstream({ completeAfterPolls: 100_000 });
  await m.startWorker({ WORKER_QUEUES: 'image,video', VIDEO_POLL_INTERVAL_MS: '100' });
  user = await m.fundedClient();
});
afterAll(async () => {
  await m?.close();
  await viaChannel?.close();
  await slow?.close();
});

async function channelOn(upstream: OpenAIMediaUpstream, name: string): Promise<{ id: string }> {
  return admin<{ id: string }>(m.gateway.app, 'POST', '/channels', {
    provider: 'openai',
    name,
    api_key: DEFAULT_FAKE_KEY,
    base_url: upstream.url,
    priority: -1,
  });
}

/** Until `check` holds (the worker reloads its channels within 2 s). */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('media through channels', () => {
  it('renders through the channel that accepted it, even after that channel is disabled', async () => {
    const channel = await channelOn(viaChannel, 'media-first');
    // The worker routes images through the new channel once it has reloaded (within 2 s).
    await eventually(async () => {
      const before = viaChannel.requests.length;
      await user.client.images.generate({ model: 'openai/gpt-image-1', prompt: 'a kite' });
      return viaChannel.requests.length > before;
    });

    const envPolls = m.fakes.openai.requests.length;
    const created = await createVideo(m, user.key, { model: 'openai/sora-2', prompt: 'waves', duration: 4 });
    await eventually(async () => (await m.job(created.id))?.operation?.channelId === channel.id);
    await admin(m.gateway.app, 'PATCH', `/channels/${channel.id}`, { enabled: false });
    const done = await pollVideo(user.client, created.id, 'completed', 20_000);
    expect(done.status).toBe('completed');
    const polls = viaChannel.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/v1/videos/'));
    expect(polls.length).toBeGreaterThanOrEqual(4); // polls and the download went through the channel
    expect(m.fakes.openai.requests.slice(envPolls).filter((r) => r.url.startsWith('/v1/videos'))).toEqual([]);
    await admin(m.gateway.app, 'DELETE', `/channels/${channel.id}`);
  });

  it('refuses to delete a channel with a render in flight unless forced, then fails it uncharged', async () => {
    const channel = await channelOn(slow, 'media-slow');
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // every process routes on it
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, { model: 'openai/sora-2', prompt: 'slow', duration: 4 });
    await eventually(async () => (await m.job(created.id))?.operation?.channelId === channel.id);

    const refused = await m.gateway.app.inject({
      method: 'DELETE',
      url: `/admin/v1/channels/${channel.id}`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('channel_has_renders');

    await admin(m.gateway.app, 'DELETE', `/channels/${channel.id}?force=true`);
    const failed = await pollVideo(user.client, created.id, 'failed', 10_000);
    expect(failed.error?.message).toMatch(/deleted/);
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    const gone = await videoRequest(m, user.key, 'GET', `/${created.id}/content`);
    expect(gone.status).toBe(404);
  });
});
