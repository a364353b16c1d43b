/**
 * The Google Gemini API (generativelanguage, API-key auth) as a gateway provider: chat through
 * generateContent / streamGenerateContent and embeddings through batchEmbedContents.
 */
import type { ChatAdapter, ProviderAdapter } from '../chat-types.ts';
import { toChatUpstreamRequest } from './chat-request.ts';
import { toChatResult } from './chat-response.ts';
import { createGeminiStreamTranslator } from './chat-stream.ts';
import { googleEmbeddings } from './embeddings.ts';
import { googleErrorMessage } from './error-message.ts';

export { estimateEmbeddingTokens } from './embeddings.ts';

import { isGoogleKeyRejection } from './error-message.ts';

export { UnsupportedFeatureError } from './errors.ts';
export { isGoogleKeyRejection };

/** Gemini chat: request mapping, answer mapping and SSE translation. */
export const googleChat: ChatAdapter = {
  request: toChatUpstreamRequest,
  response: toChatResult,
  stream: createGeminiStreamTranslator,
};

/** The Gemini provider adapter. */
export const googleAdapter: ProviderAdapter = {
  chat: googleChat,
  embeddings: googleEmbeddings,
  errorMessage: googleErrorMessage,
  isCredentialRejection: isGoogleKeyRejection,
};
