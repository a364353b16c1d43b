import type { FastifyInstance } from 'fastify';
import { embeddingHold, type HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import type { EmbeddingRequest } from '../../../shared/src/providers/chat-types.ts';
import { type AdmittedRequest, bodyModelName, catalogueOf } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import type { ChatDeps } from '../chat/chat-context.ts';
import {
  errorResponses,
  jsonResponse,
  KEYED,
  rateLimitHeaders,
  UPSTREAM,
  WITH_BODY,
} from '../openapi/responses.ts';
import { embeddingListSchema } from '../schemas/chat-response.schema.ts';
import { embeddingRequestSchema } from '../schemas/embedding-request.schema.ts';
import { dropNullModel } from '../schemas/null-fields.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { createEmbeddings } from '../use-cases/create-embeddings.ts';

export interface EmbeddingsRouteDeps {
  readonly catalogue: Catalogue;
  readonly chat: ChatDeps;
}

type EmbeddingBody = Omit<EmbeddingRequest, 'model'> & { model?: string };

/** `POST /v1/embeddings`. */
export async function embeddingsRoutes(app: FastifyInstance, deps: EmbeddingsRouteDeps): Promise<void> {
  app.post<{ Body: EmbeddingBody }>(
    '/v1/embeddings',
    {
      schema: {
        tags: ['Embeddings'],
        operationId: 'createEmbedding',
        summary: 'Create embeddings',
        body: embeddingRequestSchema,
        response: {
          200: jsonResponse('One vector per input.', embeddingListSchema, rateLimitHeaders),
          ...errorResponses([...KEYED, ...WITH_BODY, ...UPSTREAM], {
            400: 'A field is invalid or unsupported by the model’s provider (the message names it); `model_required` without `model`.',
          }),
        },
      },
      preValidation: dropNullModel,
      config: {
        admission: {
          model: bodyModelName,
          estimateMicros: (request) => holdFor(deps, request.body as EmbeddingBody, request),
        },
      },
    },
    async (request, reply) => {
      const model = resolveModelFor(catalogueOf(request, deps.catalogue), request.body.model, 'embedding');
      const { input, dimensions, encoding_format } = request.body;
      return createEmbeddings(deps.chat, {
        request: {
          model: model.id,
          input,
          ...(dimensions === undefined ? {} : { dimensions }),
          ...(encoding_format ? { encoding_format } : {}),
        },
        model,
        admission: requireAdmission(request),
        signal: answerSignal(reply),
      });
    },
  );
}

/** The hold of a validated embedding request; none when its model does not resolve (404 follows). */
function holdFor(
  deps: EmbeddingsRouteDeps,
  body: EmbeddingBody,
  request: AdmittedRequest,
): HoldEstimate | bigint {
  const model =
    body.model === undefined ? undefined : catalogueOf(request, deps.catalogue).resolve(body.model);
  if (model === undefined || model.type !== 'embedding') return 0n;
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  return embeddingHold(model, inputs, deps.chat.billing.calibration);
}
