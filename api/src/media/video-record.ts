import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';

/** The spec's three video states, from the job's lifecycle. */
function statusOf(job: MediaJob): 'in_progress' | 'completed' | 'failed' {
  if (job.status === 'completed' || job.status === 'delivered') return 'completed';
  if (job.status === 'queued' || job.status === 'running') return 'in_progress';
  return 'failed';
}

const seconds = (date: Date | null) => (date === null ? null : Math.floor(date.getTime() / 1000));

/**
 * The spec's Video record. `url` is the content endpoint's address on this api (it needs the key,
 * like every endpoint); `service` appears once the video is charged. Extensions: `progress`
 * (0–100), `created_at`, `completed_at` and `expires_at` (Unix seconds).
 */
export function videoRecord(job: MediaJob, origin: string) {
  if (job.request.kind !== 'video') throw new Error(`job ${job.id} is not a video`);
  const status = statusOf(job);
  const input = job.request.input;
  return {
    id: job.id,
    object: 'video',
    model: job.model,
    status,
    seconds: input.duration,
    aspect_ratio: input.aspect_ratio ?? '16:9',
    ...(input.resolution === undefined ? {} : { resolution: input.resolution }),
    progress: status === 'completed' ? 100 : job.progress,
    ...(status === 'completed' ? { url: `${origin}/v1/videos/${job.id}/content` } : {}),
    ...(status === 'failed'
      ? { error: { message: job.error?.message ?? 'The render did not complete.' } }
      : {}),
    ...(job.costMicros === null ? {} : { service: { cost: microsToIrt(job.costMicros), currency: 'IRT' } }),
    created_at: seconds(job.createdAt),
    completed_at: seconds(job.completedAt),
    expires_at: seconds(job.expiresAt),
  };
}
