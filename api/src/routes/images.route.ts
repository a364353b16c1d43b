import type { FastifyInstance } from 'fastify';
import { boundedHold, type HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { ImageRequest } from '../../../shared/src/providers/media-types.ts';
import { type AdmittedRequest, bodyModelName, catalogueOf } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { defined } from '../media/defined.ts';
import {
  errorResponses,
  jsonResponse,
  KEYED,
  rateLimitHeaders,
  UPSTREAM,
  WITH_BODY,
} from '../openapi/responses.ts';
import { imageRequestSchema, NULLABLE_IMAGE_FIELDS } from '../schemas/media-request.schema.ts';
import { imagesResponseSchema } from '../schemas/media-response.schema.ts';
import { dropNullFieldsHook } from '../schemas/null-fields.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { type MediaDeps, runSyncJob } from '../use-cases/run-sync-job.ts';

export interface ImagesRouteDeps {
  readonly catalogue: Catalogue;
  readonly media: MediaDeps;
  readonly defaultModel: string;
}

type ImageBody = ImageRequest & { model?: string };

/** `POST /v1/images/generations`: images as base64 PNG, produced by a worker job. */
export async function imagesRoutes(app: FastifyInstance, deps: ImagesRouteDeps): Promise<void> {
  app.post<{ Body: ImageBody }>(
    '/v1/images/generations',
    {
      attachValidation: true,
      preValidation: dropNullFieldsHook(NULLABLE_IMAGE_FIELDS),
      schema: {
        tags: ['Images'],
        operationId: 'createImage',
        summary: 'Generate images',
        description: `Images as base64 PNG. Without \`model\` the default image model answers. The nullable fields (${NULLABLE_IMAGE_FIELDS.map((f) => `\`${f}\``).join(', ')}) sent as \`null\` are treated as absent: their defaults apply.`,
        body: imageRequestSchema,
        response: {
          200: jsonResponse('The images, charged per image.', imagesResponseSchema, rateLimitHeaders),
          ...errorResponses([...KEYED, ...WITH_BODY, ...UPSTREAM, 422]),
        },
      },
      config: {
        admission: {
          model: (inputs) => bodyModelName(inputs) ?? deps.defaultModel,
          estimateMicros: (request) => holdFor(deps, request.body as ImageBody, request),
          holdId: (requestId) => mediaJobIdFor('image', requestId),
        },
      },
    },
    async (request, reply) => {
      const model = resolveModelFor(
        catalogueOf(request, deps.catalogue),
        request.body.model ?? deps.defaultModel,
        'image',
      );
      const { prompt, n, size, quality, background, aspect_ratio } = request.body;
      const input: ImageRequest = { prompt, n, ...defined({ size, quality, background, aspect_ratio }) };
      const delivered = await runSyncJob(deps.media, {
        request: { kind: 'image', input },
        model,
        admission: requireAdmission(request),
        signal: answerSignal(reply),
        readResult: (result) => {
          if (result.kind !== 'image') throw new Error('an image job delivered another kind of result');
          return Promise.all(
            result.images.map(async (image) => ({
              b64_json: Buffer.from(
                await deps.media.handoff.takeOr(image.handoff, () => deps.media.storage.getBytes(image.key)),
              ).toString('base64'),
              ...(image.revisedPrompt === null ? {} : { revised_prompt: image.revisedPrompt }),
            })),
          );
        },
      });
      const data = delivered.read ?? [];
      return {
        created: Math.floor(delivered.job.createdAt.getTime() / 1000),
        data,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        service: { model: model.id, cost: microsToIrt(delivered.costMicros), currency: 'IRT' },
      };
    },
  );
}

/**
 * The hold of a validated image request (never called for one that failed its 422 validation):
 * its `n` images (1 to 4, default 1) at the model's price; none when the model does not resolve.
 */
function holdFor(deps: ImagesRouteDeps, body: ImageBody, request: AdmittedRequest): HoldEstimate | bigint {
  const model = catalogueOf(request, deps.catalogue).resolve(body.model ?? deps.defaultModel);
  if (model === undefined || model.type !== 'image') return 0n;
  return boundedHold(mediaCostMicros(model.pricing, body.n));
}
