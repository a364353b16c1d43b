import type { Calibration } from '../../../../shared/src/billing/hold-calibration.ts';
import {
  BYTES_PER_TOKEN,
  calibratedTokens,
  type HoldEstimate,
  INPUT_OVERHEAD_TOKENS,
} from '../../../../shared/src/billing/hold-estimate.ts';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { Catalogue, CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { refuseUntakenParams } from '../../../../shared/src/native/check-params.ts';
import type { CheckedOutputBound } from '../../../../shared/src/native/field-bounds.ts';
import type { MappedRequest } from '../../../../shared/src/native/map-json-model.ts';
import type { NativeTokenUsage } from '../../../../shared/src/native/native-usage.ts';
import {
  ChatCompletionsUsageAccumulator,
  chatCompletionsUnpricedParts,
  chatCompletionsUsage,
  chatStreamReportsUsage,
  mapChatCompletionsModel,
} from '../../../../shared/src/native/openai/chat-completions.ts';
import {
  embeddingInputTokenBounds,
  embeddingsUsage,
  mapEmbeddingsModel,
} from '../../../../shared/src/native/openai/embeddings.ts';
import { mapResponsesModel } from '../../../../shared/src/native/openai/model-name.ts';
import {
  checkChatCompletionsBounds,
  checkEmbeddingsBounds,
  checkResponsesBounds,
} from '../../../../shared/src/native/openai/request-bounds.ts';
import { ResponsesUsageAccumulator, responsesUsage } from '../../../../shared/src/native/openai/usage.ts';
import type { StreamProtocol } from '../../../../shared/src/native/stream/stream-protocol.ts';
import {
  chatCompletionsProtocol,
  responsesProtocol,
} from '../../../../shared/src/native/stream/text-protocols.ts';
import type { UsageAccumulator } from '../../../../shared/src/native/stream/usage-accumulator.ts';
import { unpricedRequestParts } from '../../../../shared/src/native/unpriced-request.ts';
import { nativeTokenHold } from '../native-plan.ts';

type Body = Readonly<Record<string, unknown>>;

/** One OpenAI endpoint served natively: how its body names the model, what it holds, refuses and bills. */
export interface OpenAIEndpoint {
  /** The path after OpenAI's base URL (`https://api.openai.com/v1`), e.g. `/responses`. */
  readonly path: string;
  /** The catalogue model the body names, and its body per OpenAI route. */
  map(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest;
  /**
   * Checks the body's fields against the gateway's bounds (`NativeFieldError`, before anything is
   * held or sent); what its hold is sized from.
   */
  bounds(model: CatalogueModel, body: Body): CheckedOutputBound;
  /** The hold of a request (docs/native.md, "How a native request is served"), from its checked bounds. */
  hold(
    model: CatalogueModel,
    bodyBytes: number,
    body: Body,
    checked: CheckedOutputBound,
    calibration: Calibration,
  ): HoldEstimate;
  /** Throws the 400 of a request the model cannot take or the gateway cannot bill, before it is sent. */
  refuse(model: CatalogueModel, body: Body): void;
  /** The usage of a whole answer (its parsed JSON); undefined when it reports none. */
  usage(answer: unknown): NativeTokenUsage | undefined;
  /** The observers of a streamed answer (its usage, its protocol); absent where the endpoint does not stream. */
  stream?: () => { accumulator: UsageAccumulator; protocol: StreamProtocol };
}

/** Responses fields that bring in input stored at OpenAI, which the body's bytes do not show. */
const STORED_INPUT_FIELDS = ['previous_response_id', 'conversation', 'prompt'] as const;

/** OpenAI's Responses API: `POST /v1/responses`, streamed or not. */
export const RESPONSES_ENDPOINT: OpenAIEndpoint = {
  path: '/responses',
  map: mapResponsesModel,
  bounds: checkResponsesBounds,
  hold(model, bodyBytes, body, checked, calibration) {
    // Input stored at OpenAI (an earlier response, a conversation, a prompt template) can be the
    // whole context window: held as such, so the hold stays a bound of the cost.
    const stored = STORED_INPUT_FIELDS.some((field) => body[field] !== undefined && body[field] !== null);
    const inputBytes =
      stored && model.context_window !== null ? model.context_window * BYTES_PER_TOKEN : bodyBytes;
    const hold = nativeTokenHold(model, inputBytes, checked, calibration);
    // Stored input is not stated by the request: its hold is an estimate, not a bound to fit.
    return stored ? { ...hold, bounded: false } : hold;
  },
  refuse(model, body) {
    refuseUntakenParams(model, body);
    refuseUnpriced(model, unpricedRequestParts('openai-responses', model, body));
  },
  usage: responsesUsage,
  stream: () => ({ accumulator: new ResponsesUsageAccumulator(), protocol: responsesProtocol() }),
};

/** OpenAI's Chat Completions API: `POST /v1/chat/completions`, streamed or not. */
export const CHAT_COMPLETIONS_ENDPOINT: OpenAIEndpoint = {
  path: '/chat/completions',
  map: mapChatCompletionsModel,
  bounds: checkChatCompletionsBounds,
  hold(model, bodyBytes, _body, checked, calibration) {
    // As `/v1` chat: per choice its stated output bound or what the model's answers used lately.
    return nativeTokenHold(model, bodyBytes, checked, calibration);
  },
  refuse(model, body) {
    refuseUntakenParams(model, body);
    refuseUnpriced(model, chatCompletionsUnpricedParts(model, body));
    if (body.stream === true && !chatStreamReportsUsage(body)) {
      throw errors.invalidRequest(
        'A streamed chat completion is billed from the usage it reports: set `stream_options.include_usage` to true. The request was not sent.',
      );
    }
  },
  usage: chatCompletionsUsage,
  stream: () => ({ accumulator: new ChatCompletionsUsageAccumulator(), protocol: chatCompletionsProtocol() }),
};

/** OpenAI's Embeddings API: `POST /v1/embeddings`. */
export const EMBEDDINGS_ENDPOINT: OpenAIEndpoint = {
  path: '/embeddings',
  map: mapEmbeddingsModel,
  bounds(_model, body) {
    checkEmbeddingsBounds(body);
    return { maxOutputTokens: undefined, choices: 1 };
  },
  hold(model, _bodyBytes, body, _checked, calibration) {
    let tokens = INPUT_OVERHEAD_TOKENS;
    for (const bound of embeddingInputTokenBounds(body))
      tokens += Math.min(bound, model.context_window ?? bound);
    const figures = calibration.figures(model.id, 'native', tokens);
    const calibrated = calibratedTokens(tokens, figures.inputRatio);
    const micros = tokenCostMicros(model.pricing, {
      inputTokens: calibrated,
      cachedInputTokens: Math.floor(calibrated * figures.cachedShare),
      outputTokens: 0,
      reasoningTokens: 0,
    });
    return {
      micros,
      bounded: false,
      basis: { model: model.id, basis: 'native', estimatedInputTokens: tokens, choices: 1 },
    };
  },
  refuse() {
    // Input tokens are all an embedding is billed for: nothing to refuse.
  },
  usage: embeddingsUsage,
};

/** The OpenAI endpoints the gateway serves under `/openai/v1` (docs/native.md). */
export const OPENAI_ENDPOINTS: readonly OpenAIEndpoint[] = [
  RESPONSES_ENDPOINT,
  CHAT_COMPLETIONS_ENDPOINT,
  EMBEDDINGS_ENDPOINT,
];

function refuseUnpriced(model: CatalogueModel, parts: readonly string[]): void {
  if (parts.length === 0) return;
  throw errors.invalidRequest(
    `The gateway cannot bill ${parts.join(', ')} on ${model.id}: the request was not sent.`,
  );
}
