import type { MediaJobResult, MediaKind } from './media-job.ts';

/**
 * What a media processor returns to BullMQ: kept with the finished job and sent in its `completed`
 * event, which wakes the api waiting for the job. A completed job carries its result (storage keys,
 * a transcription's text) when that is small, so the waiting api need not read the document back;
 * a larger one is left out (BullMQ keeps return values with the jobs it retains) and is read.
 */
export interface MediaJobReturn {
  readonly status: string;
  readonly result?: MediaJobResult;
}

/** Above this (characters of JSON), a result stays in the job document only. */
export const MAX_RETURNED_RESULT_CHARS = 16 * 1024;

export function completedReturn(result: MediaJobResult): MediaJobReturn {
  return JSON.stringify(result).length <= MAX_RETURNED_RESULT_CHARS
    ? { status: 'completed', result }
    : { status: 'completed' };
}

/** The result a completion event carried for a job of `kind`, or null when it carried none. */
export function resultOfReturn(value: unknown, kind: MediaKind): MediaJobResult | null {
  if (typeof value !== 'object' || value === null) return null;
  const { status, result } = value as { status?: unknown; result?: unknown };
  if (status !== 'completed' || typeof result !== 'object' || result === null) return null;
  return (result as { kind?: unknown }).kind === kind ? (result as MediaJobResult) : null;
}
