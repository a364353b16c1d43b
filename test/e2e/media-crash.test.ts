/**
 * Crash test: two worker PROCESSES on one queue; the one holding a job in the middle of its
 * provider call is killed with SIGKILL. BullMQ's stalled-job check (short lock and interval here)
 * hands the job to the other process, and the idempotent steps make the rerun safe: the job
 * completes once, is delivered once, is charged once (one ledger entry keyed by the job id), and
 * the ledger check passes.
 *
 * Two cases, because the charge is made in two places: a synchronous image (the api charges on
 * delivery, after a long wait) and a video, killed while downloading the finished MP4, the step
 * just before the WORKER charges it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  costMicros,
  jobIdOf,
  type MediaClient,
  type MediaGateway,
  serviceOf,
  startMediaGateway,
  waitUntil,
} from '../helpers/media-gateway.ts';
import { createVideo, pollVideo } from '../helpers/media-videos.ts';
import type { SpawnedEntry } from '../helpers/spawn-entry.ts';

const CRASHY_WORKER = {
  WORKER_LOCK_DURATION_MS: '1500',
  WORKER_STALLED_INTERVAL_MS: '1500',
  VIDEO_POLL_INTERVAL_MS: '100',
};
/** Long enough that the first worker is surely still waiting for the provider when it is killed. */
const SLOW = { kind: 'slow', delayMs: 8_000 } as const;

let m: MediaGateway;
let user: MediaClient;

beforeAll(async () => {
  m = await startMediaGateway({
    apiEnv: { MEDIA_WAIT_TIMEOUT_MS: '25000' },
    workerEnv: CRASHY_WORKER,
    openai: { completeAfterPolls: 1 },
  });
  user = await m.fundedClient();
});
afterAll(async () => {
  await m?.close();
});

/** Starts a second worker on `queue`, then kills `first` with SIGKILL. */
async function replaceWorker(first: SpawnedEntry, queue: string): Promise<void> {
  await m.startWorker({ WORKER_QUEUES: queue });
  first.child.kill('SIGKILL');
  expect((await first.exited()).signal).toBe('SIGKILL');
}

const imageCalls = () => m.fakes.openai.requests.filter((r) => r.url === '/v1/images/generations');
const videoDownloads = () => m.fakes.openai.requests.filter((r) => /\/content$/.test(r.url));

describe('a worker killed in the middle of a job', () => {
  it('synchronous image: the other worker reruns it; delivered and charged exactly once', async () => {
    const first = await m.startWorker({ WORKER_QUEUES: 'image' });
    m.fakes.openai.script.next(SLOW);
    const before = await m.balanceMicros(user.accountId);
    const pending = user.client.images
      .generate({ model: 'openai/gpt-image-1', prompt: 'a phoenix', n: 1 })
      .withResponse();
    await waitUntil(() => imageCalls().length === 1);
    await replaceWorker(first, 'image');

    const { data: result, response } = await pending;
    const jobId = jobIdOf('image', response.headers.get('x-request-id'));
    expect(result.data).toHaveLength(1);
    expect(imageCalls()).toHaveLength(2); // the killed worker's call, and the rerun's
    const cost = costMicros(serviceOf(result).cost);
    expect(before - (await m.balanceMicros(user.accountId))).toBe(cost);
    expect(await m.charges(user.accountId)).toEqual([{ id: jobId, amountMicros: -cost }]);
    expect((await m.job(jobId))?.status).toBe('delivered');
    expect(await m.bullJobEnded('image', jobId)).toBe('completed');
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  }, 60_000);

  it('video: killed while downloading the MP4; rerun polls (no second submit) and charges once', async () => {
    const first = await m.startWorker({ WORKER_QUEUES: 'video' });
    // submit and the first poll (already `completed`) answer at once; the download is slow.
    m.fakes.openai.script.next({ kind: 'ok' }, 2).next(SLOW);
    const before = await m.balanceMicros(user.accountId);
    const created = await createVideo(m, user.key, { model: 'openai/sora-2', prompt: 'embers', duration: 4 });
    await waitUntil(() => videoDownloads().length === 1);
    expect(await m.balanceMicros(user.accountId)).toBe(before);
    await replaceWorker(first, 'video');

    const video = await pollVideo(user.client, created.id, 'completed', 20_000);
    const submits = m.fakes.openai.requests.filter((r) => r.method === 'POST' && r.url === '/v1/videos');
    expect(submits).toHaveLength(1);
    expect(videoDownloads()).toHaveLength(2);
    const cost = costMicros(serviceOf(video).cost);
    expect(before - (await m.balanceMicros(user.accountId))).toBe(cost);
    const charges = await m.charges(user.accountId);
    expect(charges.filter((c) => c.id === created.id)).toEqual([{ id: created.id, amountMicros: -cost }]);
    expect(charges).toHaveLength(2);
    const content = await user.client.videos.downloadContent(created.id);
    expect(Buffer.from(await content.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
    expect(await m.bullJobEnded('video', created.id)).toBe('completed');
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  }, 60_000);
});
