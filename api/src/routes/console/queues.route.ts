import type { FastifyInstance } from 'fastify';
import { QUEUE_NAMES, type QueueName } from '../../../../shared/src/jobs/queue-names.ts';
import { guardConsoleRoutes } from '../../console/console-auth.ts';
import { discardFailedJob, listFailedJobs, queueCounts, retryFailedJob } from '../../use-cases/queue-jobs.ts';
import { consoleErrorResponses } from './console.schema.ts';
import type { ConsoleDeps } from './console-deps.ts';

const queueParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', enum: QUEUE_NAMES } },
} as const;

const jobParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'jobId'],
  properties: { ...queueParams.properties, jobId: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

const failedQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 100_000, default: 0 },
  },
} as const;

const countsSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'waiting', 'active', 'delayed', 'failed'],
        properties: {
          name: { type: 'string' },
          waiting: { type: 'integer' },
          active: { type: 'integer' },
          delayed: { type: 'integer' },
          failed: { type: 'integer' },
        },
      },
    },
  },
} as const;

const failedJobSchema = {
  type: 'object',
  required: [
    'id',
    'name',
    'media_job_id',
    'attempts_made',
    'failed_reason',
    'stacktrace',
    'created_at',
    'failed_at',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    media_job_id: { type: ['string', 'null'] },
    attempts_made: { type: 'integer' },
    failed_reason: { type: 'string' },
    stacktrace: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    failed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

const failedListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: failedJobSchema } },
} as const;

type QueueParams = { name: QueueName };
type JobParams = QueueParams & { jobId: string };

/** Operators' view of the media queues: counts, failed jobs with their error, retry, discard. */
export async function queuesRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'operator',
  );
  const { queues } = deps.media;

  app.get('/queues', { schema: { response: { 200: countsSchema, ...consoleErrorResponses } } }, async () => ({
    object: 'list',
    data: await queueCounts(queues),
  }));

  app.get<{ Params: QueueParams; Querystring: { limit: number; offset: number } }>(
    '/queues/:name/failed',
    {
      schema: {
        params: queueParams,
        querystring: failedQuery,
        response: { 200: failedListSchema, ...consoleErrorResponses },
      },
    },
    async (request) => {
      const jobs = await listFailedJobs(queues, { queue: request.params.name, ...request.query });
      return {
        object: 'list',
        data: jobs.map((job) => ({
          id: job.id,
          name: job.name,
          media_job_id: job.mediaJobId,
          attempts_made: job.attemptsMade,
          failed_reason: job.failedReason,
          stacktrace: job.stacktrace,
          created_at: job.createdAt.toISOString(),
          failed_at: job.failedAt?.toISOString() ?? null,
        })),
      };
    },
  );

  app.post<{ Params: JobParams }>(
    '/queues/:name/failed/:jobId/retry',
    { schema: { params: jobParams, response: { 204: { type: 'null' }, ...consoleErrorResponses } } },
    async (request, reply) => {
      await retryFailedJob(queues, { queue: request.params.name, jobId: request.params.jobId });
      request.log.info(
        { queue: request.params.name, jobId: request.params.jobId },
        'console: failed job retried',
      );
      return reply.code(204).send();
    },
  );

  app.post<{ Params: JobParams }>(
    '/queues/:name/failed/:jobId/discard',
    { schema: { params: jobParams, response: { 204: { type: 'null' }, ...consoleErrorResponses } } },
    async (request, reply) => {
      await discardFailedJob(queues, { queue: request.params.name, jobId: request.params.jobId });
      request.log.info(
        { queue: request.params.name, jobId: request.params.jobId },
        'console: failed job discarded',
      );
      return reply.code(204).send();
    },
  );
}
