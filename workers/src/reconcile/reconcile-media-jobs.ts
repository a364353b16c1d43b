import type { Billing } from '../../../shared/src/billing/billing.ts';
import { enqueueMediaJob, type Queues } from '../../../shared/src/jobs/job-catalogue.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import type { MediaHandoff } from '../../../shared/src/media-jobs/media-handoff.ts';
import { handoffsOf, type MediaJob, type MediaJobError } from '../../../shared/src/media-jobs/media-job.ts';
import type {
  MediaJobsRepository,
  UnfinishedCursor,
} from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { type MediaStorage, storedKeysOf } from '../../../shared/src/media-jobs/media-storage.ts';
import { VIDEO_HOLD_MARGIN_MS } from '../../../shared/src/media-jobs/video-hold.ts';
import { failedRender, type VideoRecords } from '../../../shared/src/request-log/video-records.ts';
import { type PassLoop, startPassLoop } from './pass-loop.ts';

/**
 * The reconciler (docs/media.md, "Reconciliation"): every media job ends, whatever was lost. A
 * job's queue entry can vanish (Redis lost its data), its worker's last step can fail, the api
 * waiting for it can die. One pass reads the jobs that are not final and were not touched for a
 * while, and for each one decides from its document and its BullMQ state:
 *
 * - queue entry gone (or in a final BullMQ state while the document is not): enqueued again under
 *   the same BullMQ job id, so enqueueing twice is a no-op; a video's hold is put back if Redis
 *   lost it;
 * - a video past its deadline (`deadlineAt`), not held by a worker: `failed` (never charged), its
 *   hold released; one a worker still holds is left to that worker's own deadline check, unless it
 *   is past its deadline by ACTIVE_VIDEO_GRACE_MS (a stuck or dead worker);
 * - a synchronous job (image, speech, transcription) older than the api's wait plus a grace: the
 *   api that waited for it is gone or gave up, so nobody will deliver it: `cancelled` (queued,
 *   running) or `discarded` (completed), nothing charged, its hold released, its stored media
 *   (S3 objects, Redis handoff copies, a transcription's upload) deleted.
 *
 * Every step is a conditional move of the document or an idempotent enqueue, so any number of
 * worker replicas may run passes at once; a short Redis lock merely keeps them from repeating one
 * another's work within an interval.
 */

/** What a pass needs; wired once per worker process. */
export interface ReconcileDeps {
  readonly jobs: Pick<
    MediaJobsRepository,
    'listUnfinished' | 'findById' | 'markFailed' | 'markCancelled' | 'markDiscarded'
  >;
  readonly queues: Queues;
  readonly storage: Pick<MediaStorage, 'remove'>;
  readonly handoff: Pick<MediaHandoff, 'drop'>;
  readonly billing: Pick<Billing, 'release' | 'restoreHold'>;
  readonly settings: ReconcileSettings;
  readonly now: () => Date;
  readonly logger: Logger;
  /** The request log records of the requests that started videos (a render failed here ends one). */
  readonly videoRecords?: Pick<VideoRecords, 'complete'> | undefined;
}

export interface ReconcileSettings {
  /** How long the api waits for a synchronous job (`MEDIA_WAIT_TIMEOUT_MS`, as the api has it). */
  readonly waitTimeoutMs: number;
  /** `VIDEO_DEADLINE_MS`: the deadline of a video whose document has none. */
  readonly videoDeadlineMs: number;
  /** Jobs touched more recently than this are left to their owners (the pass interval). */
  readonly minAgeMs: number;
}

/** What one pass did. */
export interface ReconcileReport {
  checked: number;
  enqueued: number;
  failed: number;
  cancelled: number;
  discarded: number;
}

export type Reconciliation = 'leave' | 'enqueue' | 'requeue' | 'fail' | 'cancel' | 'discard';

/** A BullMQ job state, or `unknown` when the queue has no such job. */
export type QueueState = string;

/** A video a worker holds (`active`) is failed by the reconciler only this long past its deadline. */
export const ACTIVE_VIDEO_GRACE_MS = 5 * 60 * 1000;
/** At most this much longer than the api's wait before a synchronous job counts as abandoned. */
const MAX_SYNC_GRACE_MS = 30_000;
const PAGE = 200;
/** Jobs examined in one pass at most; the rest wait for the next. */
const MAX_PER_PASS = 5_000;
/** Jobs examined at once within a page. */
const CONCURRENCY = 16;

const DEADLINE_ERROR: MediaJobError = {
  message: 'The render did not finish before its deadline.',
  status: 502,
  type: 'upstream_error',
  code: 'render_failed',
};

/**
 * How long after its creation a synchronous job is surely no longer awaited: the api's wait, plus
 * as long again (at most 30 s), for the api's own cancel to land first and for clocks that differ.
 */
export function abandonedAfterMs(waitTimeoutMs: number): number {
  return waitTimeoutMs + Math.min(waitTimeoutMs, MAX_SYNC_GRACE_MS);
}

/** What to do with a job that is not final, given its BullMQ state (`unknown`: no queue entry). */
export function decide(
  job: Pick<MediaJob, 'kind' | 'status' | 'createdAt' | 'deadlineAt'>,
  queueState: QueueState | null,
  now: Date,
  settings: Pick<ReconcileSettings, 'waitTimeoutMs' | 'videoDeadlineMs'>,
): Reconciliation {
  const at = now.getTime();
  if (job.kind !== 'video') {
    const abandoned = at - job.createdAt.getTime() > abandonedAfterMs(settings.waitTimeoutMs);
    if (job.status === 'completed') return abandoned ? 'discard' : 'leave';
    if (job.status !== 'queued' && job.status !== 'running') return 'leave';
    return abandoned ? 'cancel' : queueAction(queueState);
  }
  if (job.status !== 'queued' && job.status !== 'running') return 'leave';
  const deadline = job.deadlineAt?.getTime() ?? job.createdAt.getTime() + settings.videoDeadlineMs;
  if (queueState === 'active') return at > deadline + ACTIVE_VIDEO_GRACE_MS ? 'fail' : 'leave';
  return at > deadline ? 'fail' : queueAction(queueState);
}

function queueAction(queueState: QueueState | null): Reconciliation {
  if (queueState === 'unknown') return 'enqueue';
  if (queueState === 'completed' || queueState === 'failed') return 'requeue';
  return 'leave';
}

/** One pass over the jobs that are not final; never rejects for one job's failure (logged). */
export async function reconcileMediaJobs(deps: ReconcileDeps): Promise<ReconcileReport> {
  const now = deps.now();
  const olderThan = new Date(now.getTime() - deps.settings.minAgeMs);
  const report: ReconcileReport = { checked: 0, enqueued: 0, failed: 0, cancelled: 0, discarded: 0 };
  let after: UnfinishedCursor | undefined;
  while (report.checked < MAX_PER_PASS) {
    const page = await deps.jobs.listUnfinished(olderThan, PAGE, after);
    for (let from = 0; from < page.length; from += CONCURRENCY) {
      await Promise.all(
        page.slice(from, from + CONCURRENCY).map((job) => reconcileOne(deps, job, now, report)),
      );
    }
    report.checked += page.length;
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) break;
    after = { updatedAt: last.updatedAt, id: last.id };
  }
  const acted = report.enqueued + report.failed + report.cancelled + report.discarded;
  if (acted > 0) deps.logger.info({ ...report }, 'media jobs reconciled');
  return report;
}

async function reconcileOne(deps: ReconcileDeps, job: MediaJob, now: Date, report: ReconcileReport) {
  const log = deps.logger.child({ jobId: job.id, kind: job.kind });
  try {
    const queue = deps.queues[job.kind];
    // A completed job's queue entry says nothing more: it ended there.
    const state = job.status === 'completed' ? null : await queue.getJobState(job.id);
    const action = decide(job, state, now, deps.settings);
    switch (action) {
      case 'leave':
        return;
      case 'enqueue':
      case 'requeue':
        if (await enqueueAgain(deps, job, action === 'requeue')) {
          report.enqueued += 1;
          log.warn(
            { queueState: state, status: job.status },
            'media job enqueued again: its queue entry was lost',
          );
        }
        return;
      case 'fail':
        if (await failVideo(deps, job, now)) {
          report.failed += 1;
          log.warn({ queueState: state }, 'video failed by the reconciler: past its deadline');
        }
        return;
      case 'cancel':
      case 'discard':
        if (await abandonSyncJob(deps, job, action, now)) {
          report[action === 'cancel' ? 'cancelled' : 'discarded'] += 1;
          const moved = action === 'cancel' ? 'cancelled' : 'discarded';
          log.warn({ status: job.status }, `media job ${moved}: the api that waited for it is gone`);
        }
        return;
    }
  } catch (err) {
    log.error({ err }, 'reconciling a media job failed; the next pass tries again');
  }
}

/** Enqueues the job again (same BullMQ id); `replace` first removes a final BullMQ job of that id. */
async function enqueueAgain(deps: ReconcileDeps, job: MediaJob, replace: boolean): Promise<boolean> {
  // Read again: the job may have ended (and left the queue) since the page was read.
  const current = await deps.jobs.findById(job.id);
  if (current === null || (current.status !== 'queued' && current.status !== 'running')) return false;
  const queue = deps.queues[job.kind];
  if (replace) await (await queue.getJob(job.id))?.remove();
  await enqueueMediaJob(deps.queues, job.kind, job.id);
  if (job.kind === 'video') await restoreVideoHold(deps, current);
  return true;
}

/**
 * A video's hold lives until its deadline plus a margin (a fixed life, owned by the job): when
 * Redis lost it with the queue entry, it is put back, so admission keeps counting the render.
 */
async function restoreVideoHold(deps: ReconcileDeps, job: MediaJob): Promise<void> {
  if (job.deadlineAt === null) return;
  const ttlMs = job.deadlineAt.getTime() + VIDEO_HOLD_MARGIN_MS - Date.now();
  if (ttlMs <= 0) return;
  await deps.billing.restoreHold({
    requestId: job.id,
    accountId: job.accountId,
    keyId: job.keyId,
    amountMicros: job.holdMicros,
    ttlMs,
  });
}

/** Fails a video past its deadline: never charged, its hold released, its queue entry removed. */
async function failVideo(deps: ReconcileDeps, job: MediaJob, now: Date): Promise<boolean> {
  const failed = await deps.jobs.markFailed(job.id, DEADLINE_ERROR, now);
  if (failed === null) return false;
  await deps.billing.release({ requestId: job.id, accountId: job.accountId, keyId: job.keyId });
  deps.videoRecords?.complete(job.id, failedRender(DEADLINE_ERROR));
  await removeQueueEntry(deps, job);
  return true;
}

/** A synchronous job nobody awaits any more: cancelled or discarded, released, its media deleted. */
async function abandonSyncJob(
  deps: ReconcileDeps,
  job: MediaJob,
  action: 'cancel' | 'discard',
  now: Date,
): Promise<boolean> {
  const ended =
    action === 'cancel'
      ? await deps.jobs.markCancelled(job.id, now)
      : await deps.jobs.markDiscarded(job.id, now);
  if (ended === null) return false;
  await deps.billing.release({ requestId: job.id, accountId: job.accountId, keyId: job.keyId });
  await Promise.all([
    deps.storage.remove(storedKeysOf(ended)),
    ended.result === null ? Promise.resolve() : deps.handoff.drop(handoffsOf(ended.result)),
    action === 'cancel' ? removeQueueEntry(deps, job) : Promise.resolve(),
  ]);
  return true;
}

/** Removes a job's BullMQ entry when no worker holds it (a worker that takes it finds the job final). */
async function removeQueueEntry(deps: ReconcileDeps, job: MediaJob): Promise<void> {
  try {
    await (await deps.queues[job.kind].getJob(job.id))?.remove();
  } catch {
    // Held by a worker (locked): that worker finds the document final and drops the attempt.
  }
}

export type ReconcilerLoop = PassLoop<ReconcileReport>;

/** Runs a pass every `intervalMs` (`RECONCILE_INTERVAL_MS`); see startPassLoop for `tryLock`. */
export function startReconciler(
  deps: ReconcileDeps,
  intervalMs: number,
  tryLock?: () => Promise<boolean>,
): ReconcilerLoop {
  return startPassLoop(() => reconcileMediaJobs(deps), {
    intervalMs,
    tryLock,
    onError: (err) => deps.logger.error({ err }, 'reconciling media jobs failed; the next pass tries again'),
  });
}
