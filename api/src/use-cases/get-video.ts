import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';

export interface GetVideoDeps {
  readonly jobs: Pick<MediaJobsRepository, 'findOwned'>;
}

/**
 * One of the account's videos (not deleted). Anyone else's, or an id of no video, is the same 404
 * `video_not_found`: a video belongs to the account that created it, and for others it does not exist.
 */
export async function getVideo(
  deps: GetVideoDeps,
  input: { accountId: string; videoId: string },
): Promise<MediaJob> {
  const job = await deps.jobs.findOwned(input.videoId, input.accountId, 'video');
  if (job === null) throw videoNotFound(input.videoId, 'does not exist');
  return job;
}

/** 404 `video_not_found`: `why` says whether it does not exist (for this account), is not ready, or expired. */
export function videoNotFound(id: string, why: string): AppError {
  return new AppError(404, 'invalid_request_error', 'video_not_found', `The video ${id} ${why}.`);
}
