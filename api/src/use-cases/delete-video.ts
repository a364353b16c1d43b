import { AppError } from '../../../shared/src/errors/app-error.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { MediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import { getVideo } from './get-video.ts';

export interface DeleteVideoDeps {
  readonly jobs: Pick<MediaJobsRepository, 'findOwned' | 'markDeleted'>;
  readonly storage: Pick<MediaStorage, 'remove'>;
  readonly clock: () => Date;
}

/**
 * Deletes one of the account's finished or failed videos (soft: the job is marked) and its MP4;
 * the charge stands (no refund). 404 `video_not_found` for anyone else's or an unknown id, 409
 * `video_in_progress` while it renders. Answers the video as it was.
 */
export async function deleteVideo(
  deps: DeleteVideoDeps,
  input: { accountId: string; videoId: string },
): Promise<MediaJob> {
  const job = await getVideo(deps, input);
  if (job.status === 'queued' || job.status === 'running') {
    throw new AppError(
      409,
      'invalid_request_error',
      'video_in_progress',
      'A video cannot be deleted while it renders.',
    );
  }
  await deps.jobs.markDeleted(job.id, job.accountId, deps.clock());
  if (job.result?.kind === 'video') await deps.storage.remove([job.result.key]);
  return job;
}
