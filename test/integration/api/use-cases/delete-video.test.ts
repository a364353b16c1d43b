import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeleteVideoDeps, deleteVideo } from '../../../../api/src/use-cases/delete-video.ts';
import type { MediaJob } from '../../../../shared/src/media-jobs/media-job.ts';
import { newAccountId, STORED_MP4, storedVideo } from '../../../helpers/stored-video.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

// The real store (SQLite file) and bucket (s3rver) of a test app.
let t: TestApp;
let deps: DeleteVideoDeps;
beforeAll(async () => {
  t = await buildTestApp();
  deps = { jobs: t.services.media.jobs, storage: t.services.media.storage, clock: () => new Date() };
});
afterAll(() => t.close());

/** The MP4 of a completed video as the bucket has it now (null once removed). */
async function storedMp4(job: MediaJob): Promise<Uint8Array | null> {
  if (job.result?.kind !== 'video') throw new Error(`the video ${job.id} has no MP4`);
  const stored = await t.services.media.storage.read(job.result.key);
  if (stored === null || stored === 'unsatisfiable') return null;
  return new Uint8Array(Buffer.concat(await stored.body.toArray()));
}

const stillListed = async (job: MediaJob) =>
  (await t.services.media.jobs.findOwned(job.id, job.accountId, 'video')) !== null;

describe('deleteVideo', () => {
  it('deletes a finished video and removes its MP4 from the bucket', async () => {
    const accountId = newAccountId();
    const job = await storedVideo(t.services.media, accountId, 'completed');
    expect(await storedMp4(job)).toEqual(STORED_MP4);

    const deleted = await deleteVideo(deps, { accountId, videoId: job.id });
    expect(deleted).toMatchObject({ id: job.id, status: 'completed' });
    expect(await stillListed(job)).toBe(false);
    expect(await t.services.media.jobs.listOwned(accountId, 'video', 10)).toEqual([]);
    expect(await storedMp4(job)).toBeNull();
  });

  it('deletes a failed video, which stored nothing', async () => {
    const accountId = newAccountId();
    const job = await storedVideo(t.services.media, accountId, 'failed');
    await expect(deleteVideo(deps, { accountId, videoId: job.id })).resolves.toMatchObject({ id: job.id });
    expect(await stillListed(job)).toBe(false);
  });

  it.each(['queued', 'running'] as const)(
    'refuses a %s video with 409 video_in_progress and keeps it',
    async (status) => {
      const accountId = newAccountId();
      const job = await storedVideo(t.services.media, accountId, status);
      await expect(deleteVideo(deps, { accountId, videoId: job.id })).rejects.toMatchObject({
        status: 409,
        type: 'invalid_request_error',
        code: 'video_in_progress',
        message: 'A video cannot be deleted while it renders.',
      });
      expect(await stillListed(job)).toBe(true);
    },
  );

  it('answers 404 video_not_found for another account’s video, and deletes nothing', async () => {
    const owner = newAccountId();
    const job = await storedVideo(t.services.media, owner, 'completed');
    await expect(deleteVideo(deps, { accountId: newAccountId(), videoId: job.id })).rejects.toMatchObject({
      status: 404,
      code: 'video_not_found',
      message: `The video ${job.id} does not exist.`,
    });
    expect(await stillListed(job)).toBe(true);
    expect(await storedMp4(job)).toEqual(STORED_MP4);
  });

  it('answers 404 video_not_found for an id of no video, and for one already deleted', async () => {
    const accountId = newAccountId();
    const unknown = 'video_req_unknown';
    await expect(deleteVideo(deps, { accountId, videoId: unknown })).rejects.toMatchObject({
      status: 404,
      code: 'video_not_found',
      message: `The video ${unknown} does not exist.`,
    });
    const job = await storedVideo(t.services.media, accountId, 'failed');
    await deleteVideo(deps, { accountId, videoId: job.id });
    await expect(deleteVideo(deps, { accountId, videoId: job.id })).rejects.toMatchObject({
      status: 404,
      code: 'video_not_found',
    });
  });
});
