import { DelayedError, type Job } from 'bullmq';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import type { MediaJob, ProviderOperation } from '../../../shared/src/media-jobs/media-job.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { settleJobCharge } from '../../../shared/src/media-jobs/settle-job.ts';
import { NO_TOKENS, observeCharge } from '../../../shared/src/observability/charge-observation.ts';
import { channelMediaRoute, usableMediaRoutes } from '../../../shared/src/providers/media-registry.ts';
import type { MediaRoute } from '../../../shared/src/providers/media-route.ts';
import type { VideoRequest } from '../../../shared/src/providers/media-types.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import {
  JobEndedElsewhere,
  type MediaCompletion,
  MediaJobFailure,
  runMediaJob,
} from '../media/run-media-job.ts';

/**
 * `video.render`, in steps that are each safe to repeat: submit the render once (the provider's
 * operation id is recorded on the document, so a rerun polls instead of submitting again), poll it
 * with delayed reruns of the same job (growing intervals, an overall deadline), then store the MP4
 * in S3, charge it (ledger entry keyed by the job id) and only then mark the video completed.
 */
export function videoProcessor(deps: MediaWorkerDeps) {
  return (bullJob: Job<MediaJobPayload>, token?: string) =>
    runMediaJob(deps, 'video', bullJob, async (job, model, attempt) => {
      if (job.request.kind !== 'video') throw new Error(`job ${job.id} is not a video job`);
      const input = job.request.input;
      const operation = job.operation ?? (await submit(deps, job, usableMediaRoutes(model, deps), input));
      // Polled and downloaded through the channel that accepted it, whatever its health now.
      const route = channelMediaRoute(model, operation, deps);
      if (route === undefined) throw failure('The provider of this render is no longer configured.');
      const state = await route.poll(operation);
      if (state.state === 'failed') throw failure(`The render failed: ${state.message}`);
      if (state.state === 'running')
        return waitAndPollAgain(deps, job, operation, state.progress, bullJob, token);
      return deliver(deps, job, model, route, state.downloadUrl, input, attempt);
    });
}

async function submit(
  deps: MediaWorkerDeps,
  job: MediaJob,
  routes: MediaRoute[],
  input: VideoRequest,
): Promise<ProviderOperation> {
  const { route, value: operationId } = await firstSuccessfulRoute(routes, 'generate_content', (r) =>
    r.submit(input, job.id),
  );
  const operation: ProviderOperation = {
    provider: route.provider,
    nativeModel: route.nativeModel,
    operationId,
    submittedAt: deps.now(),
    ...(route.channel == null ? {} : { channelId: route.channel.id }),
  };
  await deps.jobs.recordOperation(job.id, operation, deps.now());
  return operation;
}

async function waitAndPollAgain(
  deps: MediaWorkerDeps,
  job: MediaJob,
  operation: ProviderOperation,
  progress: number | null,
  bullJob: Job,
  token: string | undefined,
): Promise<never> {
  const now = deps.now();
  if (job.deadlineAt !== null && now.getTime() > job.deadlineAt.getTime()) {
    throw failure('The render did not finish before its deadline.');
  }
  await deps.jobs.recordProgress(job.id, Math.min(99, Math.max(job.progress, progress ?? job.progress)), now);
  const interval = deps.config.media.videoPollIntervalMs;
  const elapsed = now.getTime() - operation.submittedAt.getTime();
  const delay = Math.min(Math.max(interval, Math.floor(elapsed / 4)), interval * 6);
  await bullJob.moveToDelayed(Date.now() + delay, token);
  throw new DelayedError();
}

async function deliver(
  deps: MediaWorkerDeps,
  job: MediaJob,
  model: CatalogueModel,
  route: MediaRoute,
  downloadUrl: string,
  input: VideoRequest,
  attempt: string,
): Promise<MediaCompletion> {
  const key = mediaKeys.video(job.id, attempt);
  await deps.storage.putStream(key, await route.download(input, downloadUrl), 'video/mp4');
  const stored = await deps.storage.read(key);
  if (stored === null || stored === 'unsatisfiable')
    throw new Error(`the video of job ${job.id} was not stored`);
  stored.body.destroy();
  // Still ours to charge? The reconciler fails a render far past its deadline (docs/media.md):
  // a failed video is never charged, so a job that left `running` is not charged here.
  if ((await deps.jobs.recordProgress(job.id, 99, deps.now())) === null)
    throw new JobEndedElsewhere(job.id, [key]);
  const costMicros = mediaCostMicros(model.pricing, input.duration);
  await settleJobCharge(deps.billing, job, model.id, costMicros);
  observeCharge(model.id, route.provider, NO_TOKENS, costMicros);
  const expiresAt = new Date(deps.now().getTime() + deps.config.media.videoRetentionMs);
  const result = {
    kind: 'video' as const,
    provider: route.provider,
    key,
    seconds: input.duration,
    sizeBytes: stored.totalLength,
  };
  return { result, costMicros, storedKeys: [key], expiresAt };
}

function failure(message: string): MediaJobFailure {
  return new MediaJobFailure({ message, status: 502, type: 'upstream_error', code: 'render_failed' });
}
