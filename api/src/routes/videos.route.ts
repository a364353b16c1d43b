import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import { enqueueMediaJob } from '../../../shared/src/jobs/job-catalogue.ts';
import type { MediaJob } from '../../../shared/src/media-jobs/media-job.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { VIDEO_HOLD_MARGIN_MS } from '../../../shared/src/media-jobs/video-hold.ts';
import type { VideoRequest } from '../../../shared/src/providers/media-types.ts';
import { bodyModelName } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { defined } from '../media/defined.ts';
import type { MediaDeps } from '../media/run-sync-job.ts';
import { sendVideoContent } from '../media/send-video-content.ts';
import { videoRecord } from '../media/video-record.ts';
import { videoRequestSchema } from '../schemas/media-request.schema.ts';
import { errorSchema } from '../schemas/model.schema.ts';
import { readVideoContent, videoNotFound } from '../use-cases/account-videos.ts';

export interface VideosRouteDeps {
  readonly catalogue: Catalogue;
  readonly media: MediaDeps;
  /** A render running longer is given up; its hold lives a little longer than that. */
  readonly deadlineMs: number;
}

type IdParams = { id: string };
type VideoBody = VideoRequest & { model: string };

/**
 * Videos: `POST /v1/videos` answers 202 at once and a worker renders (charged on delivery);
 * `GET /v1/videos/{id}` to poll, `GET /v1/videos/{id}/content` for the MP4 (Range supported).
 * Extensions: `GET /v1/videos` (the account's videos, newest first) and `DELETE /v1/videos/{id}`.
 * A video belongs to the account that created it: for anyone else it does not exist (404).
 */
export async function videosRoutes(app: FastifyInstance, deps: VideosRouteDeps): Promise<void> {
  app.post<{ Body: VideoBody }>(
    '/v1/videos',
    {
      schema: { body: videoRequestSchema, response: { '4xx': errorSchema } },
      config: {
        admission: {
          model: bodyModelName,
          estimateMicros: ({ body }) => holdFor(deps.catalogue, body as VideoBody),
          holdId: (requestId) => mediaJobIdFor('video', requestId),
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const model = resolveModelFor(deps.catalogue, request.body.model, 'video');
      const { prompt, duration, aspect_ratio, resolution } = request.body;
      const now = deps.media.now();
      const job = await deps.media.jobs.insertQueued(
        {
          id: admission.holdId,
          accountId: admission.key.accountId,
          keyId: admission.key.id,
          model: model.id,
          request: { kind: 'video', input: { prompt, duration, ...defined({ aspect_ratio, resolution }) } },
          holdMicros: admission.estimateMicros,
          deadlineAt: new Date(now.getTime() + deps.deadlineMs),
        },
        now,
      );
      try {
        await enqueueMediaJob(deps.media.queues, 'video', job.id);
      } catch (err) {
        // The client is answered an error (503 while Redis is down): the job must never run, or a
        // client retrying as told would pay twice. Cancelled from `queued`, no worker or reconciler
        // takes it; its hold, still this process's lease, is released when the response ends.
        await deps.media.jobs.markCancelled(job.id, deps.media.now()).catch((cancelErr: unknown) => {
          request.log.error(
            { err: cancelErr, jobId: job.id },
            'a video whose enqueue failed could not be cancelled',
          );
        });
        throw err;
      }
      // The hold now belongs to the job: the worker settles or releases it. Until here it was this
      // process's lease (gone within a lease if the process died); from here it lives until the
      // deadline plus a margin (shared/src/media-jobs/video-hold.ts).
      admission.settled = true;
      await deps.media.billing
        .transferHold?.({
          requestId: job.id,
          accountId: job.accountId,
          keyId: job.keyId,
          ttlMs: deps.deadlineMs + VIDEO_HOLD_MARGIN_MS,
        })
        .catch((err: unknown) => request.log.warn({ err }, 'video hold left a lease of this process'));
      return reply.code(202).send(videoRecord(job, originOf(request)));
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/v1/videos',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const jobs = await deps.media.jobs.listOwned(key.accountId, 'video', request.query.limit);
      return { object: 'list', data: jobs.map((job) => videoRecord(job, originOf(request))) };
    },
  );

  app.get<{ Params: IdParams }>('/v1/videos/:id', async (request) =>
    videoRecord(await ownedVideo(deps, request), originOf(request)),
  );

  app.delete<{ Params: IdParams }>('/v1/videos/:id', async (request, reply) => {
    const job = await ownedVideo(deps, request);
    if (job.status === 'queued' || job.status === 'running') {
      throw new AppError(
        409,
        'invalid_request_error',
        'video_in_progress',
        'A video cannot be deleted while it renders.',
      );
    }
    await deps.media.jobs.markDeleted(job.id, job.accountId, deps.media.now());
    if (job.result?.kind === 'video') await deps.media.storage.remove([job.result.key]);
    return reply.code(200).send({ id: job.id, object: 'video.deleted', deleted: true });
  });

  app.get<{ Params: IdParams }>('/v1/videos/:id/content', async (request, reply) => {
    const { key } = requireAdmission(request);
    const content = await readVideoContent(deps.media, {
      accountId: key.accountId,
      videoId: request.params.id,
      range: request.headers.range,
    });
    return sendVideoContent(reply, content);
  });
}

async function ownedVideo(
  deps: VideosRouteDeps,
  request: FastifyRequest<{ Params: IdParams }>,
): Promise<MediaJob> {
  const { key } = requireAdmission(request);
  const job = await deps.media.jobs.findOwned(request.params.id, key.accountId, 'video');
  if (job === null) throw videoNotFound(request.params.id, 'does not exist');
  return job;
}

/** The address clients reached the api by (the content URL is built from it). */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * The hold of a validated video request: its duration (1 to 60 seconds, default 8) at the model's
 * price; none when the model does not resolve (the handler answers 404).
 */
function holdFor(catalogue: Catalogue, body: VideoBody): bigint {
  const model = catalogue.resolve(body.model);
  if (model === undefined || model.type !== 'video') return 0n;
  return mediaCostMicros(model.pricing, body.duration);
}
