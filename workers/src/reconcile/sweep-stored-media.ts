import type { Logger } from '../../../shared/src/logging/logger.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import {
  jobIdOfKey,
  MEDIA_PREFIXES,
  type MediaStorage,
  storedKeysOf,
} from '../../../shared/src/media-jobs/media-storage.ts';
import { type PassLoop, startPassLoop } from './pass-loop.ts';

/**
 * The sweep of stored media (docs/media.md, "Stored media"): the bucket keeps only media someone
 * may still fetch. A synchronous job's media serves only to hand its result from the worker to the
 * api (the answer carries it: base64 images, MP3 bytes, the transcript); a video's stays
 * downloadable until its `expires_at`. Everything else goes: delivered, discarded, cancelled and
 * failed jobs' media, expired and deleted videos, objects whose job does not exist (an upload
 * whose api died before it created the job, a job whose worker died between ending it and
 * deleting what it wrote), and, once a job completed, what its other attempts stored (a worker
 * that died between storing and completing; see `mediaKeys`). The sweep walks the objects
 * themselves, not the jobs, so nothing is missed whatever step was lost.
 */

/** Objects younger than this are left alone whatever their job says: a step may still be writing or reading them. */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;

export interface SweepDeps {
  readonly jobs: Pick<MediaJobsRepository, 'findById'>;
  readonly storage: Pick<MediaStorage, 'list' | 'remove'>;
  readonly now: () => Date;
  readonly logger: Logger;
  /** Objects listed (and deleted) at once; S3's maximum unless a test pages smaller. */
  readonly pageSize?: number;
}

/** What one sweep did. */
export interface SweepReport {
  /** Objects listed under the gateway's folders. */
  checked: number;
  removed: number;
}

/** Whether the media of `job` (null: no such job) may still be fetched or written. */
export function mediaStillNeeded(
  job: Pick<MediaJob, 'kind' | 'status' | 'expiresAt' | 'deletedAt'> | null,
  now: Date,
): boolean {
  if (job === null || job.deletedAt !== null) return false;
  // Not final: an attempt may be writing it, or the api is about to deliver it (the reconciler
  // ends a synchronous job nobody awaits, and its media goes at the next sweep).
  if (job.status === 'queued' || job.status === 'running') return true;
  if (job.kind !== 'video') return job.status === 'completed';
  const finished = job.status === 'completed' || job.status === 'delivered';
  return finished && (job.expiresAt === null || job.expiresAt.getTime() > now.getTime());
}

/**
 * The objects of `job` someone may still fetch or write: all of them while it is not final (an
 * attempt may be writing), then those its result names, as long as `mediaStillNeeded`.
 */
function neededObjects(job: MediaJob | null, now: Date): (key: string) => boolean {
  if (job === null || !mediaStillNeeded(job, now)) return () => false;
  if (job.status === 'queued' || job.status === 'running') return () => true;
  const named = new Set(storedKeysOf(job));
  return (key) => named.has(key);
}

/** One sweep over the bucket's media folders; deletes, a page at a time, what no job needs. */
export async function sweepStoredMedia(deps: SweepDeps): Promise<SweepReport> {
  const now = deps.now();
  const writtenBefore = now.getTime() - SWEEP_GRACE_MS;
  const report: SweepReport = { checked: 0, removed: 0 };
  // Each job read once per sweep (an image job has several objects), a page's jobs together.
  const needed = new Map<string, (key: string) => boolean>();
  for (const prefix of MEDIA_PREFIXES) {
    for await (const page of deps.storage.list(prefix, deps.pageSize)) {
      report.checked += page.length;
      const old = page.flatMap(({ key, lastModified }) => {
        const jobId = jobIdOfKey(key);
        return jobId === undefined || lastModified.getTime() > writtenBefore ? [] : [{ key, jobId }];
      });
      const unread = [...new Set(old.map(({ jobId }) => jobId))].filter((jobId) => !needed.has(jobId));
      await Promise.all(
        unread.map(async (jobId) => {
          needed.set(jobId, neededObjects(await deps.jobs.findById(jobId), now));
        }),
      );
      const unneeded = old
        .filter(({ key, jobId }) => needed.get(jobId)?.(key) === false)
        .map(({ key }) => key);
      if (unneeded.length === 0) continue;
      await deps.storage.remove(unneeded);
      report.removed += unneeded.length;
    }
  }
  if (report.removed > 0) deps.logger.info(report, 'stored media no job needs was deleted');
  return report;
}

/** Sweeps every `intervalMs` (`MEDIA_SWEEP_INTERVAL_MS`); see startPassLoop for `tryLock`. */
export function startMediaSweeper(
  deps: SweepDeps,
  intervalMs: number,
  tryLock?: () => Promise<boolean>,
): PassLoop<SweepReport> {
  return startPassLoop(() => sweepStoredMedia(deps), {
    intervalMs,
    tryLock,
    onError: (err) => deps.logger.error({ err }, 'sweeping stored media failed; the next pass tries again'),
  });
}
