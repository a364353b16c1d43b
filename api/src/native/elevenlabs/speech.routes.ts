import type { FastifyInstance } from 'fastify';
import { boundedHold } from '../../../../shared/src/billing/hold-estimate.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { mapSpeechModel } from '../../../../shared/src/native/elevenlabs/model-name.ts';
import { checkSpeechBounds } from '../../../../shared/src/native/elevenlabs/request-bounds.ts';
import { speechUsage } from '../../../../shared/src/native/elevenlabs/usage.ts';
import { nativeCost } from '../../../../shared/src/native/native-cost.ts';
import { isObject } from '../../../../shared/src/native/native-usage.ts';
import { audioProtocol } from '../../../../shared/src/native/stream/stream-protocol.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import type { NativeDeps } from '../native-deps.ts';
import { planCache } from '../native-plan.ts';
import { sendRejection, sendStream } from '../relay-native.ts';
import { fixedUsage } from './audio-usage.ts';
import {
  ELEVENLABS_PREFIX,
  ELEVENLABS_RESPONSE_HEADERS,
  forwardElevenLabs,
  rawBodyOf,
} from './elevenlabs-call.ts';

/**
 * A voice id as ElevenLabs spells them (20 letters and digits; letters, digits, `_` and `-` are
 * let through): it becomes a path segment upstream, so `.` and `..` (which a URL resolves to
 * another endpoint, called with the gateway's key) never pass.
 */
const VOICE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * `POST /elevenlabs/v1/text-to-speech/{voice_id}` and its `/stream` variant (the SDK's
 * `textToSpeech.convert` and `textToSpeech.stream`): a JSON body whose `model_id` (default
 * `eleven_multilingual_v2`) is mapped, audio back in the `output_format` of the query, relayed as
 * it arrives. Billed the characters of `text` (code points) at the model's `1K_chars` price:
 * known from the request, so the hold is the exact cost, charged once the audio ended whole.
 */
export async function speechRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  const plans = planCache((request) => {
    const voiceId = (request.params as { voice_id: string }).voice_id;
    if (!VOICE_ID.test(voiceId))
      throw errors.invalidRequest('The voice id may hold only letters, digits, `_` and `-`.');
    const body = rawBodyOf(request);
    const mapped = mapSpeechModel(body, catalogueOf(request, deps.catalogue));
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (!isObject(parsed)) throw errors.invalidRequest('The request body must be a JSON object.');
    checkSpeechBounds(parsed);
    const usage = speechUsage(parsed);
    return { voiceId, mapped, usage, costMicros: nativeCost(mapped.model, usage) };
  });

  for (const variant of ['', '/stream'] as const) {
    app.post(
      `${ELEVENLABS_PREFIX}/v1/text-to-speech/:voice_id${variant}`,
      {
        config: {
          admission: {
            model: (request) => plans.peek(request)?.mapped.model.id,
            estimateMicros: (request) => boundedHold(plans.peek(request)?.costMicros ?? 0n),
          },
        },
      },
      async (request, reply) => {
        const admission = requireAdmission(request);
        const { voiceId, mapped, usage } = plans.require(request);
        const { result, upstream } = await forwardElevenLabs(deps, request, reply, {
          path: `/v1/text-to-speech/${voiceId}${variant}`,
          contentType: 'application/json',
          mapped,
        });
        if (result.kind === 'rejection') return sendRejection(reply, result);
        const relay = { deps, admission, model: mapped.model, forwardHeaders: ELEVENLABS_RESPONSE_HEADERS };
        return sendStream(reply, relay, result, {
          accumulator: fixedUsage(usage),
          protocol: audioProtocol(),
          call: upstream,
        });
      },
    );
  }
}
