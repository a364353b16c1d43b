import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { MediaStorage, StoredObject } from '../../../shared/src/media-jobs/media-storage.ts';
import { getVideo, videoNotFound } from './get-video.ts';
import { listVideos } from './list-videos.ts';

export interface AccountVideosDeps {
  readonly jobs: Pick<MediaJobsRepository, 'listOwned' | 'findOwned'>;
  readonly storage: Pick<MediaStorage, 'read'>;
  /** How long a finished video stays downloadable (`VIDEO_RETENTION_DAYS`). */
  readonly retentionMs: number;
  readonly clock: () => Date;
}

/** The most videos the console lists (newest first). */
export const VIDEOS_LISTED = 100;

/**
 * The account's videos while retained, newest first: rendering ones, finished ones until their
 * `expires_at`, failed ones for as long as a finished one would have stayed.
 */
export async function listRetainedVideos(
  deps: AccountVideosDeps,
  input: { accountId: string },
): Promise<MediaJob[]> {
  const now = deps.clock().getTime();
  const jobs = await listVideos(deps, { accountId: input.accountId, limit: VIDEOS_LISTED });
  return jobs.filter((job) => (job.expiresAt?.getTime() ?? job.createdAt.getTime() + deps.retentionMs) > now);
}

/** A video's MP4 (or the byte range asked for), or a range outside it (with the size). */
export type VideoContent = StoredObject | { unsatisfiable: true; sizeBytes: number };

/**
 * The MP4 of one of the account's finished videos (a byte range of it with `range`). Anyone else's
 * video, or one not ready or expired, is a 404 `video_not_found`; 'unsatisfiable' for a range
 * outside it (with the size, for `Content-Range`).
 */
export async function readVideoContent(
  deps: Pick<AccountVideosDeps, 'jobs' | 'storage'>,
  input: { accountId: string; videoId: string; range?: string; now: Date },
): Promise<VideoContent> {
  const job = await getVideo(deps, input);
  if (job.result?.kind !== 'video' || !['completed', 'delivered'].includes(job.status)) {
    throw videoNotFound(job.id, 'is not ready');
  }
  // Past its `expires_at` a video is gone, whether or not the sweep has deleted its object yet.
  if (job.expiresAt !== null && job.expiresAt.getTime() <= input.now.getTime())
    throw videoNotFound(job.id, 'has expired');
  const stored = await deps.storage.read(job.result.key, input.range);
  if (stored === 'unsatisfiable') return { unsatisfiable: true, sizeBytes: job.result.sizeBytes };
  if (stored === null) throw videoNotFound(job.id, 'has expired');
  return stored;
}
