import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { mediaCostMicros } from '../../../shared/src/billing/media-pricing.ts';
import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { resolveModelFor } from '../../../shared/src/catalogue/resolve-for-endpoint.ts';
import { mediaJobIdFor } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import { mediaKeys } from '../../../shared/src/media-jobs/media-storage.ts';
import { catalogueOf } from '../admission/admission-context.ts';
import { type AdmissionDeps, admitHold } from '../admission/admit-request.ts';
import { requireAdmission } from '../admission/require-admission.ts';
import { defined } from '../media/defined.ts';
import { MAX_AUDIO_BYTES, receiveAudioUpload } from '../media/receive-audio-upload.ts';
import {
  errorResponses,
  jsonResponse,
  KEYED,
  rateLimitHeaders,
  UPSTREAM,
  WITH_BODY,
} from '../openapi/responses.ts';
import { fieldError } from '../plugins/field-validation.ts';
import { transcriptionFormSchema, transcriptionSchema } from '../schemas/media-response.schema.ts';
import { answerSignal } from '../streaming/answer-signal.ts';
import { type MediaDeps, runSyncJob } from '../use-cases/run-sync-job.ts';

export interface TranscriptionsRouteDeps {
  readonly catalogue: Catalogue;
  readonly media: MediaDeps;
  readonly admission: Pick<AdmissionDeps, 'billing'>;
  readonly defaultModel: string;
}

const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/**
 * `POST /v1/audio/transcriptions` (multipart). Admission counts the request before the upload;
 * the cost is held once the upload is measured (its duration is the billing basis), with checks
 * 5–7 run again then for the model the form names. Refused or invalid uploads are deleted.
 */
export async function transcriptionsRoutes(
  app: FastifyInstance,
  deps: TranscriptionsRouteDeps,
): Promise<void> {
  await app.register(multipart, { limits: { fileSize: MAX_AUDIO_BYTES } });
  app.post(
    '/v1/audio/transcriptions',
    {
      schema: {
        tags: ['Audio'],
        operationId: 'createTranscription',
        summary: 'Speech to text',
        multipartBody: transcriptionFormSchema,
        response: {
          200: jsonResponse(
            'The transcription, charged per minute of the measured audio.',
            transcriptionSchema,
            rateLimitHeaders,
          ),
          ...errorResponses([...KEYED, ...WITH_BODY, ...UPSTREAM, 422]),
        },
      },
      config: { admission: { holdId: (requestId) => mediaJobIdFor('transcription', requestId) } },
    },
    async (request, reply) => {
      let admission = requireAdmission(request);
      if (!request.isMultipart()) throw fieldError('file', 'must be sent as multipart/form-data');
      const key = mediaKeys.upload(admission.holdId);
      const upload = await receiveAudioUpload(request, deps.media.storage, key);
      try {
        const { model: name, language, prompt } = upload.fields;
        if (language !== undefined && !LANGUAGE.test(language))
          throw fieldError('language', 'must be a language code such as en or fa');
        const model = resolveModelFor(catalogueOf(request, deps.catalogue), name ?? deps.defaultModel, 'stt');
        const seconds = upload.probe.durationSeconds;
        admission = await admitHold(
          deps.admission,
          reply,
          admission,
          model.id,
          mediaCostMicros(model.pricing, seconds),
        );
        request.admission = admission;
        const delivered = await runSyncJob(deps.media, {
          request: {
            kind: 'transcription',
            input: {
              ...defined({ language, prompt }),
              fileName: upload.fileName,
              contentType: upload.probe.contentType,
              sizeBytes: upload.sizeBytes,
              durationSeconds: seconds,
            },
          },
          model,
          admission,
          signal: answerSignal(reply),
        });
        if (delivered.result.kind !== 'transcription')
          throw new Error('a transcription job delivered another kind of result');
        const { text, language: detected, duration, words } = delivered.result;
        return {
          text,
          language: detected ?? '',
          duration,
          words,
          service: { model: model.id, cost: microsToIrt(delivered.costMicros), currency: 'IRT' },
        };
      } finally {
        // The audio served its purpose (or was refused): it is not kept. Removed off the answer's
        // path: the charge is already queued, and the answer must not wait on the S3 round trip.
        void deps.media.storage.remove([key]).catch(() => undefined);
      }
    },
  );
}
