import type { ImageRequest, SpeechRequest, VideoRequest } from '../providers/media-types.ts';

/** The four media job kinds; each has its BullMQ queue of the same name. */
export type MediaKind = 'image' | 'speech' | 'transcription' | 'video';

/** The kinds an api request waits for (a video answers at once and is polled). */
export const SYNCHRONOUS_KINDS = ['image', 'speech', 'transcription'] as const satisfies readonly MediaKind[];

/**
 * States of a media job. `queued → running → completed | failed` is the worker's path. For the
 * synchronous kinds the api then moves `completed → delivered` when it answers the client (and
 * charges), or, when its wait ended first, `queued | running → cancelled` or
 * `completed → discarded` (nothing charged; a worker finishing later cannot complete it). A video
 * whose queue entry could not be made (Redis down) is `queued → cancelled` and its POST answered
 * 503: nobody was given its id, and it is never rendered nor charged.
 */
export type MediaJobStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'delivered'
  | 'discarded';

/** What a transcription job transcribes: the upload, already in S3, and its measured duration. */
export interface TranscriptionJobRequest {
  language?: string;
  prompt?: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  durationSeconds: number;
}

export type MediaJobRequest =
  | { kind: 'image'; input: ImageRequest }
  | { kind: 'speech'; input: SpeechRequest }
  | { kind: 'transcription'; input: TranscriptionJobRequest }
  | { kind: 'video'; input: VideoRequest };

/** The names of a result's short-lived Redis copies (media-handoff.ts). */
export function handoffsOf(result: MediaJobResult): string[] {
  if (result.kind !== 'image') return [];
  return result.images.flatMap((image) => (image.handoff === undefined ? [] : [image.handoff]));
}

/**
 * What a finished job produced (media bytes live in S3 under the job's folder, `mediaKeys`), and
 * `provider`, the route's provider that produced it (results recorded before it was kept have none).
 */
export type MediaJobResult = { provider?: string } & (
  | {
      kind: 'image';
      /** `handoff`: the name of a short-lived Redis copy of the PNG, when one was made (media-handoff.ts). */
      images: Array<{ key: string; revisedPrompt: string | null; handoff?: string }>;
    }
  | { kind: 'speech'; key: string; characters: number }
  | {
      kind: 'transcription';
      text: string;
      language: string | null;
      duration: number;
      words: Array<{ word: string; start: number; end: number }>;
    }
  | { kind: 'video'; key: string; seconds: number; sizeBytes: number }
);

/** A render submitted to a provider, so a rerun polls it instead of submitting again. */
export interface ProviderOperation {
  provider: string;
  nativeModel: string;
  operationId: string;
  submittedAt: Date;
  /** The channel that accepted the render: polling and the download go through it. */
  channelId?: string;
}

export interface MediaJobError {
  message: string;
  status: number;
  type: string;
  code: string | number;
}

export interface MediaJob {
  id: string;
  kind: MediaKind;
  accountId: string;
  keyId: string;
  /** Catalogue id of the model. */
  model: string;
  status: MediaJobStatus;
  request: MediaJobRequest;
  /** The cost held at admission, in µIRT (released or replaced when the job ends). */
  holdMicros: bigint;
  result: MediaJobResult | null;
  /** The cost charged, in µIRT, once charged. */
  costMicros: bigint | null;
  /** Why the job failed, as the client is told (spec error fields). */
  error: MediaJobError | null;
  /** 0 to 100 (video). */
  progress: number;
  operation: ProviderOperation | null;
  /** The moment after which a render still running is given up (video). */
  deadlineAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** When the stored media is deleted (video content). */
  expiresAt: Date | null;
  deletedAt: Date | null;
}
