import type { Job } from 'bullmq';
import type { MediaJobPayload } from '../../../shared/src/jobs/job-catalogue.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { UpstreamProtocolError } from '../../../shared/src/providers/chat-types.ts';
import { demoMedia } from '../../../shared/src/providers/demo/media/index.ts';
import { usableMediaRoutes } from '../../../shared/src/providers/media-registry.ts';
import type { GeneratedImage, ImageRequest } from '../../../shared/src/providers/media-types.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import { capabilityOf, downloadBytes, type HttpMediaRoute, sendForJson } from '../media/media-calls.ts';
import type { MediaWorkerDeps } from '../media/media-worker-deps.ts';
import { runMediaJob } from '../media/run-media-job.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface PngImage {
  readonly png: Uint8Array;
  readonly revisedPrompt: string | null;
}

/** `image.generate`: the images of a request, stored as PNG under the job's and the attempt's keys. */
export function imageProcessor(deps: MediaWorkerDeps) {
  return (bullJob: Job<MediaJobPayload>) =>
    runMediaJob(deps, 'image', bullJob, async (job, model, attempt) => {
      if (job.request.kind !== 'image') throw new Error(`job ${job.id} is not an image job`);
      const input = job.request.input;
      const routes = usableMediaRoutes(model.routes, deps.config);
      const { route: served, value: images } = await firstSuccessfulRoute(
        routes,
        'generate_content',
        (route) =>
          route.kind === 'demo' ? Promise.resolve(demoImages(input)) : generate(deps, route, input),
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

function demoImages(input: ImageRequest): PngImage[] {
  return demoMedia.images
    .generate(input)
    .images.map((image) => ({ png: image.png, revisedPrompt: image.revisedPrompt }));
}

async function generate(
  deps: MediaWorkerDeps,
  route: HttpMediaRoute,
  input: ImageRequest,
): Promise<PngImage[]> {
  const images = capabilityOf(route, 'images');
  const result = images.response(await sendForJson(deps, route, images.request(input, route.target)), input);
  if (result.images.length === 0) throw new UpstreamProtocolError('the provider answered no image');
  return Promise.all(result.images.map((image) => toPng(deps, route, image)));
}

async function toPng(deps: MediaWorkerDeps, route: HttpMediaRoute, image: GeneratedImage): Promise<PngImage> {
  let png: Uint8Array;
  if (image.base64 !== undefined) png = Buffer.from(image.base64, 'base64');
  else if (image.url !== undefined)
    png = await downloadBytes(deps, route, { method: 'GET', url: image.url, headers: {} });
  else throw new UpstreamProtocolError('the provider answered an image without data');
  if (!Buffer.from(png.subarray(0, 8)).equals(PNG_SIGNATURE))
    throw new UpstreamProtocolError('the provider answered an image that is not a PNG');
  return { png, revisedPrompt: image.revisedPrompt ?? null };
}
