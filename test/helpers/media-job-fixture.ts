import { randomBytes } from 'node:crypto';
import type { MediaJob, MediaJobRequest, MediaKind } from '../../shared/src/media-jobs/media-job.ts';
import { mediaJobIdFor } from '../../shared/src/media-jobs/media-jobs.repository.ts';

export const FIXTURE_NOW = new Date('2026-11-22T10:00:00Z');

/** An image job document as the repository returns it; `overrides` set the fields a test is about. */
export function imageJob(overrides: Partial<MediaJob> = {}): MediaJob {
  return {
    id: 'img_1',
    kind: 'image',
    accountId: 'acct_1',
    keyId: 'key_1',
    model: 'openai/gpt-image-1',
    status: 'queued',
    request: { kind: 'image', input: { prompt: 'a cat', n: 1 } },
    holdMicros: 1n,
    result: null,
    costMicros: null,
    error: null,
    progress: 0,
    operation: null,
    deadlineAt: null,
    createdAt: FIXTURE_NOW,
    updatedAt: FIXTURE_NOW,
    completedAt: null,
    expiresAt: null,
    deletedAt: null,
    ...overrides,
  };
}

/** A request of each kind, as a job document holds it (for tests that only need its kind). */
export const JOB_REQUESTS: Readonly<Record<MediaKind, MediaJobRequest>> = {
  image: { kind: 'image', input: { prompt: 'a cat', n: 1 } },
  speech: { kind: 'speech', input: { input: 'hello', voice: 'alloy' } },
  transcription: {
    kind: 'transcription',
    input: { fileName: 'a.mp3', contentType: 'audio/mpeg', sizeBytes: 1_000, durationSeconds: 2 },
  },
  video: { kind: 'video', input: { prompt: 'waves', duration: 4 } },
};

/** A fresh job id of `kind`, as a request's would be. */
export function newJobId(kind: MediaKind): string {
  return mediaJobIdFor(kind, `req_${randomBytes(8).toString('hex')}`);
}
