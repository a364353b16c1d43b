import type { FastifyInstance } from 'fastify';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { mapAnthropicModel } from '../../../../shared/src/native/anthropic/model-name.ts';
import { checkMessagesBounds } from '../../../../shared/src/native/anthropic/request-bounds.ts';
import {
  AnthropicUsageAccumulator,
  anthropicResponseUsage,
} from '../../../../shared/src/native/anthropic/usage.ts';
import { isObject } from '../../../../shared/src/native/native-usage.ts';
import { anthropicProtocol } from '../../../../shared/src/native/stream/text-protocols.ts';
import { unpricedRequestParts } from '../../../../shared/src/native/unpriced-request.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import { forwardNative } from '../forward-native.ts';
import type { NativeDeps } from '../native-deps.ts';
import { nativeTokenHold, planCache } from '../native-plan.ts';
import { nativeTargets } from '../native-targets.ts';
import { type NativeRelay, nativeCall, sendRejection, sendStream, sendWholeAnswer } from '../relay-native.ts';

/** The Messages API version sent when the client names none (Anthropic requires the header). */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
/** Client headers Anthropic's clients rely on, forwarded as sent. */
const FORWARDED_REQUEST_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;
/** Upstream answer headers passed back (Anthropic's own request id, for the client's support cases). */
const FORWARDED_RESPONSE_HEADERS = ['request-id'] as const;

/**
 * Anthropic's Messages API under `/anthropic` (Claude Code, the Anthropic SDKs: base URL
 * `<gateway>/anthropic`): `POST /v1/messages`, streamed or not, and `POST /v1/messages/count_tokens`.
 * The body goes upstream byte for byte but for the model name; the answer comes back byte for
 * byte (thinking blocks and their signatures included), billed from the usage it reports.
 */
export async function anthropicNativeRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  for (const endpoint of ['messages', 'count_tokens'] as const) {
    const path = endpoint === 'messages' ? '/anthropic/v1/messages' : '/anthropic/v1/messages/count_tokens';
    const plans = planCache((request) => {
      const body = request.body as Buffer;
      const mapped = mapAnthropicModel(body, catalogueOf(request, deps.catalogue));
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (!isObject(parsed)) throw errors.invalidRequest('The request body must be a JSON object.');
      // count_tokens answers no output: free, nothing to bound.
      const checked = endpoint === 'messages' ? checkMessagesBounds(mapped.model, parsed) : undefined;
      return { mapped, parsed, checked };
    });
    app.post(
      path,
      {
        config: {
          admission: {
            model: (request) => plans.peek(request)?.mapped.model.id,
            estimateMicros: (request) => {
              const plan = plans.peek(request);
              if (plan?.checked === undefined) return 0n;
              const bodyBytes = (request.body as Buffer).length;
              return nativeTokenHold(plan.mapped.model, bodyBytes, plan.checked, deps.billing.calibration);
            },
          },
        },
      },
      async (request, reply) => {
        const admission = requireAdmission(request);
        const { mapped, parsed } = plans.require(request);
        const unpriced = unpricedRequestParts('anthropic', mapped.model, parsed);
        if (unpriced.length > 0) {
          throw errors.invalidRequest(
            `The gateway cannot bill ${unpriced.join(', ')} on ${mapped.model.id}: the request was not sent.`,
          );
        }
        const call = nativeCall(reply, deps);
        const forwarded: Record<string, string> = {};
        for (const name of FORWARDED_REQUEST_HEADERS) {
          const value = request.headers[name];
          if (typeof value === 'string') forwarded[name] = value;
        }
        const result = await forwardNative(deps.client, {
          operation: endpoint === 'count_tokens' ? 'count_tokens' : 'chat',
          draft: admission.draft,
          targets: nativeTargets(deps.channels, mapped.model, mapped.routes),
          request: (target) => ({
            url: `${target.baseUrl}${path.slice('/anthropic'.length)}`,
            headers: {
              'anthropic-version': DEFAULT_ANTHROPIC_VERSION,
              ...forwarded,
              'content-type': 'application/json',
              'x-api-key': target.apiKey,
            },
            body: mapped.body(target.route),
          }),
          isCredentialRejection: (status) => status === 401 || status === 403,
          signal: call.signal,
        });
        if (result.kind === 'rejection') return sendRejection(reply, result);
        const relay: NativeRelay = {
          deps,
          admission,
          model: mapped.model,
          forwardHeaders: FORWARDED_RESPONSE_HEADERS,
        };
        if (endpoint === 'count_tokens') {
          // Free at the provider, and here: passed back as it is.
          return sendWholeAnswer(reply, relay, result, () => undefined, { free: true });
        }
        if (parsed.stream === true)
          return sendStream(reply, relay, result, {
            accumulator: new AnthropicUsageAccumulator(),
            protocol: anthropicProtocol(),
            call,
          });
        return sendWholeAnswer(reply, relay, result, (body) =>
          anthropicResponseUsage(JSON.parse(body.toString('utf8'))),
        );
      },
    );
  }
}
