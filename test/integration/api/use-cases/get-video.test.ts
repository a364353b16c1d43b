import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getVideo } from '../../../../api/src/use-cases/get-video.ts';
import { listVideos } from '../../../../api/src/use-cases/list-videos.ts';
import { imageJob, newJobId } from '../../../helpers/media-job-fixture.ts';
import { newAccountId, storedVideo } from '../../../helpers/stored-video.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

// The real store (SQLite file) of a test app.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('getVideo', () => {
  it('answers one of the account’s videos', async () => {
    const accountId = newAccountId();
    const job = await storedVideo(t.services.media, accountId, 'running');
    expect(await getVideo(t.services.media, { accountId, videoId: job.id })).toEqual(job);
  });

  it('answers 404 video_not_found for another account’s video and for an id of no video', async () => {
    const job = await storedVideo(t.services.media, newAccountId(), 'completed');
    for (const input of [
      { accountId: newAccountId(), videoId: job.id },
      { accountId: job.accountId, videoId: 'video_req_unknown' },
    ]) {
      await expect(getVideo(t.services.media, input)).rejects.toMatchObject({
        status: 404,
        type: 'invalid_request_error',
        code: 'video_not_found',
        message: `The video ${input.videoId} does not exist.`,
      });
    }
  });

  it('answers 404 video_not_found for the account’s job of another kind', async () => {
    const accountId = newAccountId();
    const image = imageJob({ id: newJobId('image'), accountId });
    await t.services.media.jobs.insertQueued({ ...image, deadlineAt: null }, new Date());
    await expect(getVideo(t.services.media, { accountId, videoId: image.id })).rejects.toMatchObject({
      status: 404,
      code: 'video_not_found',
    });
  });
});

describe('listVideos', () => {
  it('lists the account’s videos newest first, at most `limit`, none of another account', async () => {
    const accountId = newAccountId();
    const older = await storedVideo(t.services.media, accountId, 'completed');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await storedVideo(t.services.media, accountId, 'queued');
    await storedVideo(t.services.media, newAccountId(), 'queued');

    const all = await listVideos(t.services.media, { accountId, limit: 10 });
    expect(all.map((job) => job.id)).toEqual([newer.id, older.id]);
    const first = await listVideos(t.services.media, { accountId, limit: 1 });
    expect(first.map((job) => job.id)).toEqual([newer.id]);
  });
});
