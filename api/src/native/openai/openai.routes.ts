import type { FastifyInstance } from 'fastify';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { isObject } from '../../../../shared/src/native/native-usage.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import { forwardNative } from '../forward-native.ts';
import type { NativeDeps } from '../native-deps.ts';
import { planCache } from '../native-plan.ts';
import { nativeTargets } from '../native-targets.ts';
import { type NativeRelay, nativeCall, sendRejection, sendStream, sendWholeAnswer } from '../relay-native.ts';
import { OPENAI_ENDPOINTS, type OpenAIEndpoint } from './openai-endpoints.ts';

/**
 * OpenAI's own API under `/openai` (the OpenAI SDKs: base URL `<gateway>/openai/v1`):
 * `POST /v1/responses` and `POST /v1/chat/completions`, streamed or not, and `POST /v1/embeddings`.
 * The body goes upstream byte for byte but for the model name, with the gateway's credential in
 * place of the client's; the answer comes back byte for byte (reasoning items included), billed
 * from the usage it reports.
 */
export async function openaiNativeRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  for (const endpoint of OPENAI_ENDPOINTS) registerEndpoint(app, deps, endpoint);
}

function registerEndpoint(app: FastifyInstance, deps: NativeDeps, endpoint: OpenAIEndpoint): void {
  const plans = planCache((request) => {
    const body = request.body as Buffer;
    const mapped = endpoint.map(body, catalogueOf(request, deps.catalogue));
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (!isObject(parsed)) throw errors.invalidRequest('The request body must be a JSON object.');
    return { mapped, parsed, checked: endpoint.bounds(mapped.model, parsed) };
  });
  app.post(
    `/openai/v1${endpoint.path}`,
    {
      config: {
        admission: {
          model: (request) => plans.peek(request)?.mapped.model.id,
          estimateMicros: (request) => {
            const plan = plans.peek(request);
            if (plan === undefined) return 0n;
            const bodyBytes = (request.body as Buffer).length;
            return endpoint.hold(
              plan.mapped.model,
              bodyBytes,
              plan.parsed,
              plan.checked,
              deps.billing.calibration,
            );
          },
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const { mapped, parsed } = plans.require(request);
      endpoint.refuse(mapped.model, parsed);
      const call = nativeCall(reply, deps);
      const result = await forwardNative(deps.client, {
        operation: endpoint.path === '/embeddings' ? 'embeddings' : 'chat',
        draft: admission.draft,
        targets: nativeTargets(deps.channels, mapped.model, mapped.routes),
        request: (target) => ({
          url: `${target.baseUrl}${endpoint.path}`,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
          body: mapped.body(target.route),
        }),
        // 401: the gateway's key refused; 403: its organisation or region not allowed.
        isCredentialRejection: (status) => status === 401 || status === 403,
        signal: call.signal,
      });
      if (result.kind === 'rejection') return sendRejection(reply, result);
      const relay: NativeRelay = { deps, admission, model: mapped.model };
      if (parsed.stream === true && endpoint.stream !== undefined)
        return sendStream(reply, relay, result, { ...endpoint.stream(), call });
      return sendWholeAnswer(reply, relay, result, (body) =>
        endpoint.usage(JSON.parse(body.toString('utf8'))),
      );
    },
  );
}
