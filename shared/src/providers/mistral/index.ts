/**
 * Mistral (`https://api.mistral.ai/v1`, Bearer key): chat completions and embeddings.
 *
 * Profile facts, from Mistral's API reference (ChatCompletionRequest, EmbeddingRequest) and
 * reasoning docs: the request schema forbids unknown fields (422 `extra_forbidden`), so only
 * documented fields are sent: the cap is `max_tokens`, the seed `random_seed`, no
 * `stream_options` (the last stream chunk carries `usage` anyway), no `logprobs`,
 * `top_logprobs`, `logit_bias`, `web_search_options`; `name` only on tool messages; `developer`
 * is sent as `system`; `image_url` parts pass, `file` parts are rejected (Mistral's documents use
 * its own `document_url` chunk, not mapped yet). `user` (an end-user id for abuse tracking, no effect on output or price) is
 * dropped. `reasoning_effort` none|low|medium|high on adjustable models; magistral models reason
 * by themselves and answer content as `thinking`/`text` chunks. Embeddings size is
 * `output_dimension`; floats are the default output, so no `encoding_format` is sent.
 */
import type { ProviderAdapter } from '../chat-types.ts';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible.ts';
import type { OpenAICompatibleProfile } from '../openai-compatible/profile.ts';

export const mistralProfile: OpenAICompatibleProfile = {
  name: 'Mistral',
  defaultBaseUrl: 'https://api.mistral.ai/v1',
  maxTokensField: 'max_tokens',
  streamOptions: false,
  developerRole: 'system',
  messageNames: 'tool',
  contentParts: 'images',
  seedField: 'random_seed',
  reasoningEfforts: ['none', 'low', 'medium', 'high'],
  responseFormats: ['text', 'json_object', 'json_schema'],
  webSearch: 'unsupported',
  unsupportedFields: ['logprobs', 'top_logprobs', 'logit_bias'],
  droppedFields: ['user'],
  reasoningInCompletion: true,
  embeddings: { dimensionsField: 'output_dimension', sendEncodingFormat: false },
};

/** The Mistral adapter: chat (streamed or not) and embeddings. */
export const mistralAdapter: ProviderAdapter = createOpenAICompatibleAdapter(mistralProfile);
