import type { FastifyInstance } from 'fastify';
import { boundedHold, type HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { SpeechRequest } from '../../../shared/src/providers/media-types.ts';
import { type AdmittedRequest, bodyModelName, catalogueOf } from '../admission/admission-context.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { defined } from '../media/defined.ts';
import {
  binaryResponse,
  errorResponses,
  KEYED,
  rateLimitHeaders,
  UPSTREAM,
  WITH_BODY,
} from '../openapi/responses.ts';
import { speechRequestSchema } from '../schemas/media-request.schema.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { type MediaDeps, runSyncJob } from '../use-cases/run-sync-job.ts';

export interface SpeechRouteDeps {
  readonly catalogue: Catalogue;
  readonly media: MediaDeps;
  readonly defaultModel: string;
}

type SpeechBody = SpeechRequest & { model?: string };

/**
 * `POST /v1/audio/speech`: MP3 bytes (`audio/mpeg`), produced by a worker job. The cost, which a
 * binary body cannot carry, is in the headers `X-Service-Cost` and `X-Service-Currency`.
 */
export async function speechRoutes(app: FastifyInstance, deps: SpeechRouteDeps): Promise<void> {
  app.post<{ Body: SpeechBody }>(
    '/v1/audio/speech',
    {
      attachValidation: true,
      schema: {
        tags: ['Audio'],
        operationId: 'createSpeech',
        summary: 'Text to speech',
        body: speechRequestSchema,
        response: {
          200: binaryResponse('The speech as MP3, charged per 1,000 characters of input.', 'audio/mpeg', {
            ...rateLimitHeaders,
            'X-Service-Cost': {
              description: 'What the request cost, in Toman (a binary body cannot carry `service`).',
              required: true,
              schema: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,6})?$' },
            },
            'X-Service-Currency': { description: 'Always `IRT`.', required: true, schema: { const: 'IRT' } },
          }),
          ...errorResponses([...KEYED, ...WITH_BODY, ...UPSTREAM, 422]),
        },
      },
      config: {
        admission: {
          model: (inputs) => bodyModelName(inputs) ?? deps.defaultModel,
          estimateMicros: (request) => holdFor(deps, request.body as SpeechBody, request),
          holdId: (requestId) => mediaJobIdFor('speech', requestId),
        },
      },
    },
    async (request, reply) => {
      const model = resolveModelFor(
        catalogueOf(request, deps.catalogue),
        request.body.model ?? deps.defaultModel,
        'tts',
      );
      const { input, voice, instructions, speed } = request.body;
      const delivered = await runSyncJob(deps.media, {
        request: { kind: 'speech', input: { input, voice, ...defined({ instructions, speed }) } },
        model,
        admission: requireAdmission(request),
        signal: answerSignal(reply),
        readResult: async (result) => {
          if (result.kind !== 'speech') throw new Error('a speech job delivered another kind of result');
          const audio = await deps.media.storage.read(result.key);
          if (audio === null || audio === 'unsatisfiable')
            throw new Error(`the stored audio ${result.key} is missing`);
          return audio;
        },
        discardRead: (audio) => audio.body.destroy(),
      });
      const audio = delivered.read;
      if (audio === undefined) throw new Error(`the audio of job ${delivered.job.id} was not read`);
      return reply
        .header('content-type', 'audio/mpeg')
        .header('content-length', String(audio.contentLength))
        .header('x-service-cost', String(microsToIrt(delivered.costMicros)))
        .header('x-service-currency', 'IRT')
        .send(audio.body);
    },
  );
}

/**
 * The hold of a validated speech request (never called for one that failed its 422 validation):
 * its input's characters (at most 10,000) at the model's price; none when the model does not resolve.
 */
function holdFor(deps: SpeechRouteDeps, body: SpeechBody, request: AdmittedRequest): HoldEstimate | bigint {
  const model = catalogueOf(request, deps.catalogue).resolve(body.model ?? deps.defaultModel);
  if (model === undefined || model.type !== 'tts') return 0n;
  return boundedHold(mediaCostMicros(model.pricing, body.input.length));
}
