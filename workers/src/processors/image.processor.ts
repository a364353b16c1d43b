import type { Job } from 'bullmq';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { usableMediaRoutes } from '../../../shared/src/providers/media-registry.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { runMediaJob } from '../media/run-media-job.ts';

/** `image.generate`: the images of a request, stored as PNG under the job's and the attempt's keys. */
export function imageProcessor(deps: MediaWorkerDeps) {
  return (bullJob: Job<MediaJobPayload>) =>
    runMediaJob(deps, 'image', bullJob, async (job, model, attempt) => {
      if (job.request.kind !== 'image') throw new Error(`job ${job.id} is not an image job`);
      const input = job.request.input;
      const routes = usableMediaRoutes(model, deps);
      const { route: served, value: images } = await firstSuccessfulRoute(
        routes,
        'generate_content',
        (route) => route.generate(input),
      );
      const keys = images.map((_, index) => mediaKeys.image(job.id, attempt, index));
      // The durable copies and the waiting api's short-lived ones, side by side (an offer never
      // rejects); when storing fails, the copies made for this attempt go too.
      const offering = Promise.all(images.map((image) => deps.handoff.offer(image.png)));
      let handoffs: (string | null)[];
      try {
        [, handoffs] = await Promise.all([
          Promise.all(images.map((image, i) => deps.storage.put(keys[i] as string, image.png, 'image/png'))),
          offering,
        ]);
      } catch (err) {
        await deps.handoff.drop((await offering).filter((name): name is string => name !== null));
        throw err;
      }
      return {
        result: {
          kind: 'image',
          provider: served.provider,
          images: images.map((image, i) => ({
            key: keys[i] as string,
            revisedPrompt: image.revisedPrompt,
            ...(handoffs[i] ? { handoff: handoffs[i] } : {}),
          })),
        },
        costMicros: null,
        storedKeys: keys,
        expiresAt: null,
      };
    });
}
