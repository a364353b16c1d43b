/**
 * Composes a `ProviderAdapter` for an OpenAI-compatible upstream from its profile (data), in the
 * manner of Portkey's OpenAI-compatible providers: no subclassing, every difference is a profile
 * field read by the shared pure transforms.
 *
 * URL and auth convention (one place for every compatible upstream): the configured base URL
 * includes the version path and has no trailing slash, e.g. `https://api.openai.com/v1`,
 * `https://api.deepseek.com`, `https://api.x.ai/v1`, `https://api.mistral.ai/v1`,
 * `https://api.groq.com/openai/v1`; chat goes to `<baseUrl>/chat/completions`, embeddings to
 * `<baseUrl>/embeddings`; the key is sent as `Authorization: Bearer <key>` (documented by all five).
 */
import type {
  ChatAdapter,
  ChatRequest,
  EmbeddingAdapter,
  EmbeddingRequest,
  ProviderAdapter,
  UpstreamRequest,
  UpstreamTarget,
} from '../chat-types.ts';
import { toChatRequestBody } from './chat-request.ts';
import { fromChatResponse } from './chat-response.ts';
import { createChatStreamTranslator } from './chat-stream.ts';
import { fromEmbeddingResponse, toEmbeddingRequestBody } from './embeddings.ts';
import { errorMessage, isCredentialRejection } from './error-message.ts';
import { ALL_REASONING_EFFORTS, type OpenAICompatibleProfile } from './profile.ts';

/** The upstream URL for a path under the configured base URL (a trailing slash in configuration is tolerated). */
export function upstreamUrl(baseUrl: string, path: '/chat/completions' | '/embeddings'): string {
  return `${baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl}${path}`;
}

function headers(apiKey: string, stream: boolean): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}

function chatAdapter(profile: OpenAICompatibleProfile): ChatAdapter {
  return {
    request(request: ChatRequest, target: UpstreamTarget, options: { stream: boolean }): UpstreamRequest {
      const body = toChatRequestBody(request, profile, target.nativeModel, options.stream);
      return {
        url: upstreamUrl(target.baseUrl, '/chat/completions'),
        headers: headers(target.apiKey, options.stream),
        body: JSON.stringify(body),
      };
    },
    response: (json: unknown) => fromChatResponse(json, profile),
    stream: () => createChatStreamTranslator(profile),
  };
}

function embeddingAdapter(
  profile: OpenAICompatibleProfile,
  embeddings: NonNullable<OpenAICompatibleProfile['embeddings']>,
): EmbeddingAdapter {
  return {
    request(request: EmbeddingRequest, target: UpstreamTarget): UpstreamRequest {
      return {
        url: upstreamUrl(target.baseUrl, '/embeddings'),
        headers: headers(target.apiKey, false),
        body: JSON.stringify(toEmbeddingRequestBody(request, embeddings, target.nativeModel)),
      };
    },
    response: (json: unknown, request: EmbeddingRequest) => fromEmbeddingResponse(json, request, profile),
  };
}

/** The adapter for one OpenAI-compatible upstream, composed from its profile. */
export function createOpenAICompatibleAdapter(profile: OpenAICompatibleProfile): ProviderAdapter {
  return {
    chat: chatAdapter(profile),
    ...(profile.embeddings ? { embeddings: embeddingAdapter(profile, profile.embeddings) } : {}),
    errorMessage,
    isCredentialRejection,
  };
}

/**
 * Profile for any other upstream declared in configuration by base URL: it speaks the
 * convention as is, so the request is forwarded unchanged apart from the model id, the
 * `web_search` extension (mapped to `web_search_options`) and the streamed usage request.
 */
export const genericCompatibleProfile: OpenAICompatibleProfile = {
  name: 'The upstream provider',
  defaultBaseUrl: '',
  maxTokensField: 'as-given',
  streamOptions: true,
  developerRole: 'developer',
  messageNames: 'all',
  contentParts: 'all',
  seedField: 'seed',
  reasoningEfforts: ALL_REASONING_EFFORTS,
  responseFormats: ['text', 'json_object', 'json_schema'],
  webSearch: 'web-search-options',
  unsupportedFields: [],
  droppedFields: [],
  reasoningInCompletion: true,
  embeddings: { dimensionsField: 'dimensions', sendEncodingFormat: true },
};

/** Adapter for configured OpenAI-compatible upstreams without a profile of their own. */
export const openAICompatibleAdapter: ProviderAdapter =
  createOpenAICompatibleAdapter(genericCompatibleProfile);

export type { OpenAICompatibleProfile } from './profile.ts';
export { UnsupportedFeatureError } from './unsupported-feature-error.ts';
