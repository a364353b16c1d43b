import type { Job } from 'bullmq';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import type { TranscriptionJobRequest } from '../../../shared/src/media-jobs/media-job.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { usableMediaRoutes } from '../../../shared/src/providers/media-registry.ts';
import type { TranscriptionRequest } from '../../../shared/src/providers/media-types.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { runMediaJob } from '../media/run-media-job.ts';

/**
 * `transcription.transcribe`: the uploaded audio (in S3 since the api received it) sent to the
 * provider. The duration answered (the billing basis) is the one the api measured from the upload, or
 * the provider's when that is longer.
 */
export function transcriptionProcessor(deps: MediaWorkerDeps) {
  return (bullJob: Job<MediaJobPayload>) =>
    runMediaJob(deps, 'transcription', bullJob, async (job, model) => {
      if (job.request.kind !== 'transcription') throw new Error(`job ${job.id} is not a transcription job`);
      const input = job.request.input;
      const routes = usableMediaRoutes(model, deps);
      const audio = routes.some((route) => route.readsAudio)
        ? await deps.storage.getBytes(mediaKeys.upload(job.id))
        : new Uint8Array();
      const request = transcriptionRequest(input, audio);
      const { route: served, value: transcript } = await firstSuccessfulRoute(
        routes,
        'generate_content',
        (route) => route.transcribe(request, input.durationSeconds),
      );
      return {
        result: {
          kind: 'transcription',
          provider: served.provider,
          text: transcript.text,
          language: transcript.language ?? input.language ?? null,
          // A file can state less duration than it holds: bill the larger of ours and the provider's.
          duration: Math.max(input.durationSeconds, transcript.duration ?? 0),
          words: transcript.words,
        },
        costMicros: null,
        storedKeys: [],
        expiresAt: null,
      };
    });
}

function transcriptionRequest(input: TranscriptionJobRequest, data: Uint8Array): TranscriptionRequest {
  return {
    ...(input.language === undefined ? {} : { language: input.language }),
    ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
    audio: { fileName: input.fileName, contentType: input.contentType, data },
  };
}
