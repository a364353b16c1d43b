import { randomBytes } from 'node:crypto';
import type { MediaDeps } from '../../api/src/use-cases/run-sync-job.ts';
import type { MediaJob } from '../../shared/src/media-jobs/media-job.ts';
import { mediaKeys } from '../../shared/src/media-jobs/media-storage.ts';
import { JOB_REQUESTS, newJobId } from './media-job-fixture.ts';

/** The MP4 bytes a completed `storedVideo` has in the bucket. */
export const STORED_MP4 = new Uint8Array(64).map((_, i) => i);

/** A fresh account id (the video use cases need no account record, only the id owning the job). */
export function newAccountId(): string {
  return `acct_${randomBytes(4).toString('hex')}`;
}

/**
 * A video of `accountId` in the store, as a worker would have left it: `queued`, `running`,
 * `failed`, or `completed` with its MP4 (`mp4`, by default `STORED_MP4`) in the bucket under its
 * result's key, downloadable until `expiresAt` (by default no end is recorded).
 */
export async function storedVideo(
  media: Pick<MediaDeps, 'jobs' | 'storage'>,
  accountId: string,
  status: 'queued' | 'running' | 'completed' | 'failed',
  completed: { readonly mp4?: Uint8Array; readonly expiresAt?: Date } = {},
): Promise<MediaJob> {
  const { jobs, storage } = media;
  const now = new Date();
  const id = newJobId('video');
  const request = JOB_REQUESTS.video;
  await jobs.insertQueued(
    { id, accountId, keyId: 'key_1', model: 'demo/video', request, holdMicros: 0n, deadlineAt: null },
    now,
  );
  if (status !== 'queued') await jobs.markRunning(id, now);
  if (status === 'completed') {
    const key = mediaKeys.video(id, 'attempt-1');
    const mp4 = completed.mp4 ?? STORED_MP4;
    await storage.put(key, mp4, 'video/mp4');
    const result = { kind: 'video', key, seconds: 4, sizeBytes: mp4.length } as const;
    await jobs.markCompleted(id, result, 1_000_000n, completed.expiresAt ?? null, now);
  }
  if (status === 'failed') {
    const error = {
      message: 'The render failed.',
      status: 502,
      type: 'upstream_error',
      code: 'upstream_error',
    };
    await jobs.markFailed(id, error, now);
  }
  const job = await jobs.findById(id);
  if (job === null) throw new Error(`the video ${id} was not stored`);
  return job;
}
