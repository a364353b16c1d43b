import type { FastifyInstance } from 'fastify';
import type { Calibration } from '../../../../shared/src/billing/hold-calibration.ts';
import { embeddingHold, type HoldEstimate } from '../../../../shared/src/billing/hold-estimate.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import type { CheckedOutputBound } from '../../../../shared/src/native/field-bounds.ts';
import {
  GEMINI_METHODS,
  type GeminiMethod,
  geminiUpstreamQuery,
  isSseQuery,
  type MappedGeminiRequest,
  mapGeminiRequest,
} from '../../../../shared/src/native/google/model-path.ts';
import {
  checkEmbedBounds,
  checkGenerationBounds,
} from '../../../../shared/src/native/google/request-bounds.ts';
import {
  embeddingUsage,
  GeminiUsageAccumulator,
  generateContentUsage,
} from '../../../../shared/src/native/google/usage.ts';
import { isObject } from '../../../../shared/src/native/native-usage.ts';
import { geminiProtocol } from '../../../../shared/src/native/stream/text-protocols.ts';
import { unpricedRequestParts } from '../../../../shared/src/native/unpriced-request.ts';
import type { GenAiOperation } from '../../../../shared/src/observability/semantic-attributes.ts';
import type { AdmittedRequest } from '../../admission/admission-context.ts';
import { catalogueOf } from '../../admission/admission-context.ts';
import { requireAdmission } from '../../admission/require-admission.ts';
import { forwardNative } from '../forward-native.ts';
import type { NativeDeps } from '../native-deps.ts';
import { nativeTokenHold, planCache } from '../native-plan.ts';
import { nativeTargets } from '../native-targets.ts';
import { type NativeRelay, nativeCall, sendRejection, sendStream, sendWholeAnswer } from '../relay-native.ts';

/** The API versions served: `v1beta`, and `v1`, where the Google Gen AI SDK for JS sends by default. */
const VERSIONS = ['v1beta', 'v1'] as const;
/**
 * The `{model}` of a served path: a name the catalogue can resolve (no slash, no colon), so that
 * `/gemini/v1beta/models/{model}:{method}` matches only the served methods; any other path under
 * the prefix falls through to the `endpoint_not_supported` answer, without a key.
 */
const MODEL_PARAM = ':model(^[A-Za-z0-9._-]+)';
/** The error detail reason with which Google refuses an API key (with a 400, not a 401). */
const BAD_KEY_REASON = 'API_KEY_INVALID';

/** What a Gemini request asks for, read once for admission and the handler. */
interface GeminiPlan {
  readonly mapped: MappedGeminiRequest;
  readonly parsed: Readonly<Record<string, unknown>>;
  /** A generation's checked output bound (none for the other methods). */
  readonly checked: CheckedOutputBound | undefined;
}

/**
 * Gemini's API under `/gemini` (the Google Gen AI SDKs: `httpOptions.baseUrl` `<gateway>/gemini`):
 * `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent` (`?alt=sse` or a JSON
 * array), `:countTokens` (free), `:embedContent` and `:batchEmbedContents`, the same under `/v1`
 * (forwarded under the version called). The key comes in
 * `x-goog-api-key` or `?key=` like any key carrier; the body goes upstream byte for byte but for
 * the model name, with the gateway's key as `x-goog-api-key`; the answer comes back byte for byte
 * (thought signatures included), billed from the usage it reports.
 */
export async function geminiNativeRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  for (const version of VERSIONS) {
    for (const method of GEMINI_METHODS) geminiRoute(app, deps, version, method);
  }
}

/** One served path: `POST /gemini/{version}/models/{model}:{method}`. */
function geminiRoute(
  app: FastifyInstance,
  deps: NativeDeps,
  version: (typeof VERSIONS)[number],
  method: GeminiMethod,
): void {
  const plans = planCache((request): GeminiPlan => {
    const body = request.body;
    if (!Buffer.isBuffer(body)) throw errors.invalidRequest('The request body must be a JSON object.');
    const { model } = request.params as { model: string };
    const mapped = mapGeminiRequest(
      `/${version}/models/${model}:${method}`,
      body,
      catalogueOf(request, deps.catalogue),
    );
    const parsed = parseObject(body);
    return { mapped, parsed, checked: checkBounds(method, mapped, parsed) };
  });
  app.post(
    `/gemini/${version}/models/${MODEL_PARAM}::${method}`,
    {
      config: {
        admission: {
          model: (request) => plans.peek(request)?.mapped.model.id,
          estimateMicros: (request) => holdOf(method, plans.peek(request), request, deps.billing.calibration),
        },
      },
    },
    async (request, reply) => {
      const admission = requireAdmission(request);
      const { mapped, parsed } = plans.require(request);
      const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      checkQuery(method, search);
      refuseUnpriced(method, mapped, parsed);
      const call = nativeCall(reply, deps);
      const query = geminiUpstreamQuery(search);
      const result = await forwardNative(deps.client, {
        operation: geminiOperation(method),
        draft: admission.draft,
        targets: nativeTargets(deps.channels, mapped.model, mapped.routes),
        request: (target) => ({
          url: `${target.baseUrl}${mapped.path(target.route)}${query}`,
          headers: { 'content-type': 'application/json', 'x-goog-api-key': target.apiKey },
          body: mapped.body(target.route),
        }),
        isCredentialRejection,
        signal: call.signal,
      });
      if (result.kind === 'rejection') return sendRejection(reply, result);
      const relay: NativeRelay = { deps, admission, model: mapped.model };
      switch (method) {
        case 'countTokens':
          // Free at the provider, and here: passed back as it is.
          return sendWholeAnswer(reply, relay, result, () => undefined, { free: true });
        case 'streamGenerateContent':
          return sendStream(reply, relay, result, {
            accumulator: new GeminiUsageAccumulator(isSseQuery(search)),
            protocol: geminiProtocol(isSseQuery(search)),
            call,
          });
        case 'generateContent':
          return sendWholeAnswer(reply, relay, result, (answer) =>
            generateContentUsage(JSON.parse(answer.toString('utf8'))),
          );
        case 'embedContent':
        case 'batchEmbedContents':
          return sendWholeAnswer(reply, relay, result, (answer) =>
            embeddingUsage(parsed, JSON.parse(answer.toString('utf8'))),
          );
      }
    },
  );
}

/** The body as a JSON object, or the client's 400. */
function parseObject(body: Buffer): Readonly<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw errors.invalidRequest('The request body is not valid JSON.');
  }
  if (!isObject(parsed)) throw errors.invalidRequest('The request body must be a JSON object.');
  return parsed;
}

/** What a method does, for its upstream span (`gen_ai.operation.name`). */
function geminiOperation(method: GeminiMethod): GenAiOperation {
  if (method === 'countTokens') return 'count_tokens';
  if (method === 'embedContent' || method === 'batchEmbedContents') return 'embeddings';
  return 'generate_content';
}

/**
 * Checks the body's fields against the gateway's bounds (`NativeFieldError`): a generation's
 * `generationConfig`, an embedding's texts; countTokens is free, nothing to bound.
 */
function checkBounds(
  method: GeminiMethod,
  mapped: MappedGeminiRequest,
  parsed: Readonly<Record<string, unknown>>,
): CheckedOutputBound | undefined {
  if (method === 'generateContent' || method === 'streamGenerateContent')
    return checkGenerationBounds(mapped.model, parsed);
  if (method === 'embedContent' || method === 'batchEmbedContents')
    checkEmbedBounds(parsed, method === 'batchEmbedContents');
  return undefined;
}

/**
 * The hold of a Gemini call (docs/native.md): a generation holds the body's bytes as input plus
 * `maxOutputTokens` for each of its `candidateCount` answers; an embedding holds its texts, as
 * `/v1/embeddings` does; countTokens is free. A request its plan refuses holds nothing.
 */
function holdOf(
  method: GeminiMethod,
  plan: GeminiPlan | undefined,
  request: AdmittedRequest,
  calibration: Calibration,
): HoldEstimate | bigint {
  if (plan === undefined || method === 'countTokens') return 0n;
  const { model } = plan.mapped;
  if (plan.checked !== undefined)
    return nativeTokenHold(model, (request.body as Buffer).length, plan.checked, calibration);
  return embeddingHold(model, embeddedTexts(plan.parsed), calibration);
}

/** The texts an embedContent or batchEmbedContents body embeds (titles included). */
function embeddedTexts(body: Readonly<Record<string, unknown>>): string[] {
  const requests = Array.isArray(body.requests) ? body.requests : [body];
  return requests.filter(isObject).flatMap((request) => {
    const content = isObject(request.content) ? request.content : {};
    const parts = Array.isArray(content.parts) ? content.parts : [];
    const texts = parts.flatMap((part) =>
      isObject(part) && typeof part.text === 'string' ? [part.text] : [],
    );
    return typeof request.title === 'string' ? [request.title, ...texts] : texts;
  });
}

/**
 * The query a client may send: `key` (its gateway key, never forwarded) and `alt`, `json` or, on
 * streamGenerateContent, `sse`. Anything else is refused: Google's system parameters can reshape
 * the answer (`fields` can drop its usage, `alt=proto` makes it unreadable), so the gateway could
 * not bill what it relayed.
 */
function checkQuery(method: GeminiMethod, search: string): void {
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(search)) {
    if (seen.has(name)) throw errors.invalidRequest(`The query parameter \`${name}\` is given twice.`);
    seen.add(name);
    if (name === 'key') continue;
    if (name === 'alt' && (value === 'json' || (value === 'sse' && method === 'streamGenerateContent')))
      continue;
    const shown = name === 'alt' ? `alt=${value}` : name;
    throw errors.invalidRequest(
      `The query parameter \`${shown}\` is not accepted on ${method}: the gateway forwards only \`alt=sse\` (streamGenerateContent) and \`alt=json\`.`,
    );
  }
}

/**
 * Refuses, before anything is sent, a request for what the model has no price for: grounding and
 * audio input on a generation, parts other than text to embed.
 */
function refuseUnpriced(
  method: GeminiMethod,
  mapped: MappedGeminiRequest,
  parsed: Readonly<Record<string, unknown>>,
): void {
  let unpriced: string[] = [];
  if (method === 'generateContent' || method === 'streamGenerateContent') {
    unpriced = unpricedRequestParts('gemini', mapped.model, parsed);
  } else if (method === 'embedContent' || method === 'batchEmbedContents') {
    unpriced = embeddingUsage(parsed).unpriced.map((part) => part.name);
  }
  if (unpriced.length > 0) {
    throw errors.invalidRequest(
      `The gateway cannot bill ${unpriced.join(', ')} on ${mapped.model.id}: the request was not sent.`,
    );
  }
}

/**
 * Google refuses the gateway's key with 401 or 403 (missing or not allowed), or with 400 and the
 * reason `API_KEY_INVALID` (https://ai.google.dev/gemini-api/docs/troubleshooting); any other 400
 * judges the client's request.
 */
function isCredentialRejection(status: number, body: string): boolean {
  if (status === 401 || status === 403) return true;
  if (status !== 400) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
    const details = Array.isArray(error.details) ? error.details : [];
    return details.some((detail) => isObject(detail) && detail.reason === BAD_KEY_REASON);
  } catch {
    return false;
  }
}
