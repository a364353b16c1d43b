import type { FastifyInstance } from 'fastify';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { mapTranscriptionModel } from '../../../../shared/src/native/elevenlabs/model-name.ts';
import { transcriptionUsage } from '../../../../shared/src/native/elevenlabs/usage.ts';
import { nativeCost } from '../../../../shared/src/native/native-cost.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { admitHold } from '../../admission/admit-request.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import { MAX_AUDIO_BYTES } from '../../media/receive-audio-upload.ts';
import type { NativeDeps } from '../native-deps.ts';
import { planCache } from '../native-plan.ts';
import { sendRejection, sendWholeAnswer } from '../relay-native.ts';
import {
  ELEVENLABS_PREFIX,
  ELEVENLABS_RESPONSE_HEADERS,
  forwardElevenLabs,
  rawBodyOf,
} from './elevenlabs-call.ts';
import { measureUpload, uploadParts } from './transcription-upload.ts';

/** Room for the form's other fields beside the audio file in a speech-to-text body. */
const FORM_FIELDS_BYTES = 1024 * 1024;

/**
 * `POST /elevenlabs/v1/speech-to-text` (the SDK's `speechToText.convert`): a multipart upload of
 * at most 50 MB of audio (as `/v1/audio/transcriptions`; the body limit of this route alone),
 * whose `model_id` field is mapped, every other byte forwarded as sent; the transcript comes
 * back whole. Admission counts the request first; once the file is measured, checks 5–7 run again
 * and its cost is held (`admitHold`), covering every channel ElevenLabs may bill with
 * `use_multi_channel`. Billed the longer of the measured duration and the answer's
 * `audio_duration_secs`, times the channels transcribed, at the model's `minute` price.
 */
export async function transcriptionRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  const plans = planCache((request) => {
    const body = rawBodyOf(request);
    const contentType = request.headers['content-type'];
    return {
      body,
      contentType: contentType ?? '',
      mapped: mapTranscriptionModel(body, contentType, catalogueOf(request, deps.catalogue)),
      parts: uploadParts(body, contentType),
    };
  });

  app.post(
    `${ELEVENLABS_PREFIX}/v1/speech-to-text`,
    {
      bodyLimit: MAX_AUDIO_BYTES + FORM_FIELDS_BYTES,
      config: { admission: { model: (request) => plans.peek(request)?.mapped.model.id } },
    },
    async (request, reply) => {
      const { body, contentType, mapped, parts } = plans.require(request);
      const upload = await measureUpload(body, parts);
      if (upload.unpriced.length > 0) {
        throw errors.invalidRequest(
          `The gateway cannot bill ${upload.unpriced.join(', ')} on ${mapped.model.id}: the request was not sent.`,
        );
      }
      const held = { kind: 'seconds', seconds: upload.seconds * upload.heldChannels } as const;
      const admission = await admitHold(
        deps,
        reply,
        requireAdmission(request),
        mapped.model.id,
        nativeCost(mapped.model, held),
      );
      // The hold now sized is released by admission's hooks if the request ends uncharged.
      request.admission = admission;
      const { result } = await forwardElevenLabs(deps, request, reply, {
        path: '/v1/speech-to-text',
        contentType,
        mapped,
      });
      if (result.kind === 'rejection') return sendRejection(reply, result);
      const relay = { deps, admission, model: mapped.model, forwardHeaders: ELEVENLABS_RESPONSE_HEADERS };
      return sendWholeAnswer(reply, relay, result, (answer) =>
        transcriptionUsage(upload.seconds, JSON.parse(answer.toString('utf8'))),
      );
    },
  );
}
