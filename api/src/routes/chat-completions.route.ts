import type { FastifyInstance } from 'fastify';
import type { HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { type AdmittedRequest, bodyModelName, catalogueOf } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import type { ChatDeps } from '../chat/chat-context.ts';
import { chatRequestHold } from '../chat/chat-hold.ts';
import { type ChatRequestBody, checkOutputBound, toChatRequest } from '../chat/chat-request.ts';
import { wantsIdentity } from '../chat/identity.ts';
import { sseResponseBody } from '../chat/sse-body.ts';
import {
  errorResponses,
  KEYED,
  rateLimitHeaders,
  requestIdHeader,
  UPSTREAM,
  WITH_BODY,
} from '../openapi/responses.ts';
import { chatRequestSchema, NULLABLE_CHAT_FIELDS } from '../schemas/chat-request.schema.ts';
import { chatCompletionSchema } from '../schemas/chat-response.schema.ts';
import { dropNullFieldsHook } from '../schemas/null-fields.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { completeChat } from '../use-cases/complete-chat.ts';
import { openChatStream } from '../use-cases/stream-chat.ts';

export interface ChatRouteDeps {
  readonly catalogue: Catalogue;
  readonly chat: ChatDeps;
}

/**
 * `null` for a field the convention lets be null means "not given" (chat-request.schema.ts), and a
 * null model is a missing one (400 model_required): all dropped before validation.
 */
const dropChatNulls = dropNullFieldsHook([...NULLABLE_CHAT_FIELDS, 'model']);

/** `POST /v1/chat/completions`, streamed or not, over the model's routes with fallback. */
export async function chatCompletionsRoutes(app: FastifyInstance, deps: ChatRouteDeps): Promise<void> {
  app.post<{ Body: ChatRequestBody }>(
    '/v1/chat/completions',
    {
      schema: {
        tags: ['Chat'],
        operationId: 'createChatCompletion',
        summary: 'Create a chat completion',
        description:
          'The model’s routes are tried in catalogue order until one answers. With `stream: true` the answer is server-sent events: `data: <ChatCompletionChunk>` lines, then `data: [DONE]`; a failure after the first event is a `data: <StreamError>` event before `[DONE]`. `X-Service-Identity: off` leaves out the identity system prompt.',
        body: chatRequestSchema,
        response: {
          200: {
            description: 'The answer: whole (JSON), or streamed (`stream: true`).',
            headers: { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders },
            content: {
              'application/json': { schema: chatCompletionSchema },
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    '`data: <ChatCompletionChunk JSON>` events, a `data: <StreamError JSON>` event if the stream fails, then `data: [DONE]`.',
                },
              },
            },
          },
          ...errorResponses([...KEYED, ...WITH_BODY, ...UPSTREAM], {
            400: 'A field is invalid or unsupported by the model’s provider (the message names it); `model_required` without `model`.',
          }),
        },
      },
      preValidation: dropChatNulls,
      config: {
        admission: {
          model: bodyModelName,
          estimateMicros: (request) => holdFor(deps, request),
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const model = resolveModelFor(catalogueOf(request, deps.catalogue), request.body.model, 'chat');
      const identity = wantsIdentity(admission.key.identityInjection, request.headers['x-service-identity']);
      const input = {
        request: toChatRequest(request.body, model, identity),
        model,
        admission,
        requestId: request.id,
        signal: answerSignal(reply),
        stopping: request.server.stopping,
        receivedAt: performance.now() - reply.elapsedTime,
      };
      if (request.body.stream !== true) return completeChat(deps.chat, input);
      const lines = await openChatStream(deps.chat, input);
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('x-accel-buffering', 'no')
        .send(sseResponseBody(lines, reply.raw));
    },
  );
}

/** The hold of a validated chat request; none when its model does not resolve (the handler answers 404). */
function holdFor(deps: ChatRouteDeps, request: AdmittedRequest): HoldEstimate | bigint {
  const body = request.body as ChatRequestBody;
  const model =
    body.model === undefined ? undefined : catalogueOf(request, deps.catalogue).resolve(body.model);
  if (model === undefined || model.type !== 'chat') return 0n;
  // Invalid before it is priced: a 400 naming the model's limit, never a 402 for its bound.
  checkOutputBound(model, body);
  const identity = wantsIdentity(request.key.identityInjection, request.headers['x-service-identity']);
  return chatRequestHold(model, body, identity, deps.chat.billing.calibration);
}
