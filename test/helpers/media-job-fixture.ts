import type { MediaJob } from '../../shared/src/media-jobs/media-job.ts';

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
