import type { FastifyInstance } from 'fastify';
import { boundedHold } from '../../../../shared/src/billing/hold-estimate.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { audioMeterFor } from '../../../../shared/src/native/elevenlabs/audio-duration.ts';
import { mapSoundModel } from '../../../../shared/src/native/elevenlabs/model-name.ts';
import { checkSoundBounds, SOUND_SECONDS } from '../../../../shared/src/native/elevenlabs/request-bounds.ts';
import { nativeCost } from '../../../../shared/src/native/native-cost.ts';
import { isObject } from '../../../../shared/src/native/native-usage.ts';
import { audioProtocol } from '../../../../shared/src/native/stream/stream-protocol.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import type { NativeDeps } from '../native-deps.ts';
import { planCache } from '../native-plan.ts';
import { sendRejection, sendStream } from '../relay-native.ts';
import { soundUsageOf } from './audio-usage.ts';
import {
  ELEVENLABS_PREFIX,
  ELEVENLABS_RESPONSE_HEADERS,
  forwardElevenLabs,
  rawBodyOf,
  singleQueryValue,
} from './elevenlabs-call.ts';

/**
 * `POST /elevenlabs/v1/sound-generation` (the SDK's `textToSoundEffects.convert`): a JSON body
 * whose `model_id` (default `eleven_text_to_sound_v2`) is mapped, audio back in the query's
 * `output_format`, relayed as it arrives. Billed per second at the model's `second` price: the
 * body's `duration_seconds`, else the duration measured from the audio as it passes; such a
 * request holds the longest sound, and one whose format cannot be measured (Opus) is refused.
 */
export async function soundRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  const plans = planCache((request) => {
    const body = rawBodyOf(request);
    const mapped = mapSoundModel(body, catalogueOf(request, deps.catalogue));
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (!isObject(parsed)) throw errors.invalidRequest('The request body must be a JSON object.');
    const seconds = checkSoundBounds(parsed);
    const fixed = seconds === undefined ? undefined : ({ kind: 'seconds', seconds } as const);
    // A request that fixes no duration holds the longest sound ElevenLabs makes.
    const held = fixed ?? { kind: 'seconds', seconds: SOUND_SECONDS.max };
    return {
      mapped,
      parsed,
      fixed,
      outputFormat: singleQueryValue(request.query, 'output_format'),
      holdMicros: nativeCost(mapped.model, held),
    };
  });

  app.post(
    `${ELEVENLABS_PREFIX}/v1/sound-generation`,
    {
      config: {
        admission: {
          model: (request) => plans.peek(request)?.mapped.model.id,
          // Bounded when the request fixes its duration; else an estimate at the longest sound.
          estimateMicros: (request) => {
            const plan = plans.peek(request);
            if (plan === undefined) return 0n;
            return plan.fixed === undefined ? plan.holdMicros : boundedHold(plan.holdMicros);
          },
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const { mapped, parsed, fixed, outputFormat } = plans.require(request);
      const meter = fixed === undefined ? audioMeterFor(outputFormat) : undefined;
      if (fixed === undefined && meter === undefined) {
        throw errors.invalidRequest(
          `The gateway cannot bill a sound in ${outputFormat} without its length: set \`duration_seconds\` or another \`output_format\`; the request was not sent.`,
        );
      }
      const { result, upstream } = await forwardElevenLabs(deps, request, reply, {
        path: '/v1/sound-generation',
        contentType: 'application/json',
        mapped,
      });
      if (result.kind === 'rejection') return sendRejection(reply, result);
      const relay = { deps, admission, model: mapped.model, forwardHeaders: ELEVENLABS_RESPONSE_HEADERS };
      return sendStream(reply, relay, result, {
        accumulator: soundUsageOf(parsed, meter),
        protocol: audioProtocol(),
        call: upstream,
      });
    },
  );
}
