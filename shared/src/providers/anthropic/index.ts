/**
 * The Anthropic provider: chat over the Messages API (`POST /v1/messages`). Anthropic offers no
 * embeddings endpoint, so this adapter has chat only.
 */
import type { ChatAdapter, ProviderAdapter, UpstreamTarget } from '../chat-types.ts';
import { anthropicHeaders, anthropicMessagesUrl } from './api.ts';
import { type AnthropicBodyTarget, DEFAULT_MAX_TOKENS, toAnthropicBody } from './chat-request.ts';
import { fromAnthropicResponse } from './chat-response.ts';
import { AnthropicStreamTranslator } from './chat-stream.ts';
import { anthropicErrorMessage } from './error-message.ts';

export { ANTHROPIC_VERSION } from './api.ts';
export { supportsNativeStructuredOutputs } from './chat-output-format.ts';
export { THINKING_BUDGETS } from './chat-thinking.ts';
export { JSON_OUTPUT_TOOL, WEB_SEARCH_MAX_USES } from './chat-tools.ts';
export { statusForErrorType } from './error-message.ts';
export { UnsupportedFeatureError } from './unsupported-feature-error.ts';
export { DEFAULT_MAX_TOKENS };

export interface AnthropicAdapterOptions {
  /** `max_tokens` sent when the client sets none and the target has no `maxOutputTokens` (default 4096). */
  defaultMaxTokens?: number;
}

/**
 * A route target that may also carry the model's output limit from the catalogue; with it, an
 * unset `max_tokens` asks for up to that limit instead of `defaultMaxTokens`.
 */
export interface AnthropicUpstreamTarget extends UpstreamTarget {
  maxOutputTokens?: number;
}

/** Builds the Anthropic adapter; options are fixed at start from configuration. */
export function createAnthropicAdapter(options: AnthropicAdapterOptions = {}): ProviderAdapter {
  const defaultMaxTokens = options.defaultMaxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(defaultMaxTokens) || defaultMaxTokens < 1) {
    throw new RangeError('defaultMaxTokens must be a positive integer');
  }
  const chat: ChatAdapter = {
    request(request, target, { stream }) {
      const body = toAnthropicBody(request, bodyTarget(target), { stream, defaultMaxTokens });
      return {
        url: anthropicMessagesUrl(target.baseUrl),
        headers: anthropicHeaders(target.apiKey, stream),
        body: JSON.stringify(body),
      };
    },
    response: fromAnthropicResponse,
    stream: () => new AnthropicStreamTranslator(),
  };
  return { chat, errorMessage: anthropicErrorMessage };
}

function bodyTarget(target: UpstreamTarget | AnthropicUpstreamTarget): AnthropicBodyTarget {
  const max = 'maxOutputTokens' in target ? target.maxOutputTokens : undefined;
  return typeof max === 'number' && max > 0
    ? { nativeModel: target.nativeModel, maxOutputTokens: max }
    : { nativeModel: target.nativeModel };
}

/** The adapter with default options. */
export const anthropicAdapter: ProviderAdapter = createAnthropicAdapter();
