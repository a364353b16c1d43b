import type { Job } from 'bullmq';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { usableMediaRoutes } from '../../../shared/src/providers/media-registry.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { runMediaJob } from '../media/run-media-job.ts';

/** `speech.synthesize`: the MP3 of a speech request, streamed from the provider into S3. */
export function speechProcessor(deps: MediaWorkerDeps) {
  return (bullJob: Job<MediaJobPayload>) =>
    runMediaJob(deps, 'speech', bullJob, async (job, model, attempt) => {
      if (job.request.kind !== 'speech') throw new Error(`job ${job.id} is not a speech job`);
      const input = job.request.input;
      const key = mediaKeys.speech(job.id, attempt);
      const routes = usableMediaRoutes(model, deps);
      const { route: served } = await firstSuccessfulRoute(routes, 'generate_content', async (route) => {
        const audio = await route.synthesize(input);
        await deps.storage.putStream(key, audio, 'audio/mpeg');
      });
      return {
        result: { kind: 'speech', provider: served.provider, key, characters: input.input.length },
        costMicros: null,
        storedKeys: [key],
        expiresAt: null,
      };
    });
}
