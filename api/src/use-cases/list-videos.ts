import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';

export interface ListVideosDeps {
  readonly jobs: Pick<MediaJobsRepository, 'listOwned'>;
}

/** The account's videos (not deleted), newest first, at most `limit`. */
export async function listVideos(
  deps: ListVideosDeps,
  input: { accountId: string; limit: number },
): Promise<MediaJob[]> {
  return deps.jobs.listOwned(input.accountId, 'video', input.limit);
}
