import type { FastifyInstance, FastifyRequest } from 'fastify';
import { boundedHold, type HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { VideoRequest } from '../../../shared/src/providers/media-types.ts';
import { bodyModelName, catalogueOf } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { defined } from '../media/defined.ts';
import { sendVideoContent } from '../media/send-video-content.ts';
import { videoRecord } from '../media/video-record.ts';
import {
  binaryResponse,
  errorResponses,
  type HeaderObject,
  jsonResponse,
  KEYED,
  rateLimitHeaders,
  WITH_BODY,
} from '../openapi/responses.ts';
import { videoRequestSchema } from '../schemas/media-request.schema.ts';
import { videoDeletedSchema, videoListSchema, videoSchema } from '../schemas/media-response.schema.ts';
import { dropNullModel } from '../schemas/null-fields.ts';
import { readVideoContent } from '../use-cases/account-videos.ts';
import { createVideo } from '../use-cases/create-video.ts';
import { deleteVideo } from '../use-cases/delete-video.ts';
import { getVideo } from '../use-cases/get-video.ts';
import { listVideos } from '../use-cases/list-videos.ts';
import type { MediaDeps } from '../use-cases/run-sync-job.ts';

export interface VideosRouteDeps {
  readonly catalogue: Catalogue;
  readonly media: MediaDeps;
  /** A render running longer is given up; its hold lives a little longer than that. */
  readonly deadlineMs: number;
}

type IdParams = { id: string };
type VideoBody = VideoRequest & { model?: string };

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The video’s id (`video_…`).' } },
} as const;

const notFound = { 404: '`video_not_found`: no video of this account has this id.' } as const;

const contentHeaders = {
  ...rateLimitHeaders,
  'Accept-Ranges': { description: '`bytes`.', required: true, schema: { const: 'bytes' } },
  'Content-Length': { description: 'The bytes in this answer.', required: true, schema: { type: 'string' } },
} as const satisfies Record<string, HeaderObject>;

/**
 * Videos: `POST /v1/videos` answers 202 at once and a worker renders (charged on delivery);
 * `GET /v1/videos/{id}` to poll, `GET /v1/videos/{id}/content` for the MP4 (Range supported).
 * Extensions: `GET /v1/videos` (the account's videos, newest first) and `DELETE /v1/videos/{id}`.
 * A video belongs to the account that created it: for anyone else it does not exist (404).
 */
export async function videosRoutes(app: FastifyInstance, deps: VideosRouteDeps): Promise<void> {
  // What the video use cases take: the media stores and adapters, the render deadline, the clock.
  const videos = {
    jobs: deps.media.jobs,
    storage: deps.media.storage,
    queues: deps.media.queues,
    billing: deps.media.billing,
    deadlineMs: deps.deadlineMs,
    clock: deps.media.now,
  };

  app.post<{ Body: VideoBody }>(
    '/v1/videos',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'createVideo',
        summary: 'Start a video render',
        body: videoRequestSchema,
        response: {
          202: jsonResponse(
            'The render is queued; poll `GET /v1/videos/{id}`. Charged per second when it completes.',
            videoSchema,
            rateLimitHeaders,
          ),
          ...errorResponses([...KEYED, ...WITH_BODY, 404]),
        },
      },
      preValidation: dropNullModel,
      config: {
        admission: {
          model: bodyModelName,
          estimateMicros: (request) =>
            holdFor(catalogueOf(request, deps.catalogue), request.body as VideoBody),
          holdId: (requestId) => mediaJobIdFor('video', requestId),
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const model = resolveModelFor(catalogueOf(request, deps.catalogue), request.body.model, 'video');
      const { prompt, duration, aspect_ratio, resolution } = request.body;
      const job = await createVideo(videos, {
        admission,
        model,
        video: { prompt, duration, ...defined({ aspect_ratio, resolution }) },
        log: request.log,
      });
      return reply.code(202).send(videoRecord(job, originOf(request)));
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/v1/videos',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'listVideos',
        summary: 'List the account’s videos',
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        },
        response: {
          200: jsonResponse('The videos, newest first.', videoListSchema, rateLimitHeaders),
          ...errorResponses(KEYED),
        },
      },
    },
    async (request) => {
      const { key } = requireAdmission(request);
      const jobs = await listVideos(videos, { accountId: key.accountId, limit: request.query.limit });
      return { object: 'list', data: jobs.map((job) => videoRecord(job, originOf(request))) };
    },
  );

  app.get<{ Params: IdParams }>(
    '/v1/videos/:id',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'retrieveVideo',
        summary: 'Poll a video',
        params: idParams,
        response: {
          200: jsonResponse('The video.', videoSchema, rateLimitHeaders),
          ...errorResponses(KEYED, notFound),
        },
      },
    },
    async (request) => videoRecord(await getVideo(videos, videoOf(request)), originOf(request)),
  );

  app.delete<{ Params: IdParams }>(
    '/v1/videos/:id',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'deleteVideo',
        summary: 'Delete a finished or failed video',
        params: idParams,
        response: {
          200: jsonResponse('The video and its MP4 are deleted.', videoDeletedSchema, rateLimitHeaders),
          ...errorResponses(KEYED, { ...notFound, 409: '`video_in_progress`: the video still renders.' }),
        },
      },
    },
    async (request, reply) => {
      const job = await deleteVideo(videos, videoOf(request));
      return reply.code(200).send({ id: job.id, object: 'video.deleted', deleted: true });
    },
  );

  app.get<{ Params: IdParams }>(
    '/v1/videos/:id/content',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'downloadVideoContent',
        summary: 'Download a completed video',
        description: 'The MP4; a `Range: bytes=…` request answers 206 with that part.',
        params: idParams,
        response: {
          200: binaryResponse('The whole MP4.', 'video/mp4', contentHeaders),
          206: binaryResponse('The part of the MP4 the `Range` asked for.', 'video/mp4', {
            ...contentHeaders,
            'Content-Range': {
              description: '`bytes <first>-<last>/<size>`.',
              required: true,
              schema: { type: 'string' },
            },
          }),
          ...errorResponses(KEYED, {
            404: '`video_not_found`: no video of this account has this id, it is not completed, or its MP4 expired.',
            416: 'The range lies outside the file (`Content-Range: bytes */<size>`).',
          }),
        },
      },
    },
    async (request, reply) => {
      const content = await readVideoContent(videos, {
        ...videoOf(request),
        range: request.headers.range,
        now: videos.clock(),
      });
      return sendVideoContent(reply, content);
    },
  );
}

/** The video a request names (`:id`), among those of its key's account. */
function videoOf(request: FastifyRequest<{ Params: IdParams }>): { accountId: string; videoId: string } {
  return { accountId: requireAdmission(request).key.accountId, videoId: request.params.id };
}

/** The address clients reached the api by (the content URL is built from it). */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * The hold of a validated video request: its duration (1 to 60 seconds, default 8) at the model's
 * price; none when the model is missing or does not resolve (the handler answers 400 or 404).
 */
function holdFor(catalogue: Catalogue, body: VideoBody): HoldEstimate | bigint {
  const model = body.model === undefined ? undefined : catalogue.resolve(body.model);
  if (model === undefined || model.type !== 'video') return 0n;
  return boundedHold(mediaCostMicros(model.pricing, body.duration));
}
