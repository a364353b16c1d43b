/**
 * OpenAI (`https://api.openai.com/v1`, Bearer key): chat completions and embeddings.
 *
 * Profile facts, from OpenAI's API reference and openai-node types: `max_tokens` is deprecated and
 * rejected by o-series and gpt-5 models, so the cap is sent as `max_completion_tokens`;
 * `stream_options.include_usage` adds a last chunk with empty `choices` and the usage;
 * `reasoning_effort` is none|minimal|low|medium|high|xhigh (which value a model accepts is the
 * model's rule, and OpenAI answers 400 for the rest); web search on Chat Completions is
 * `web_search_options` (search models such as gpt-4o-search-preview) with `url_citation`
 * annotations; usage details `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens` (included in `completion_tokens`).
 */
import type { ProviderAdapter } from '../chat-types.ts';
import {
  createOpenAICompatibleAdapter,
  genericCompatibleProfile,
} from '../openai-compatible/create-openai-compatible.ts';
import { ALL_REASONING_EFFORTS, type OpenAICompatibleProfile } from '../openai-compatible/profile.ts';

export const openaiProfile: OpenAICompatibleProfile = {
  // OpenAI defines the convention: the generic profile is OpenAI's, but for what follows.
  ...genericCompatibleProfile,
  name: 'OpenAI',
  defaultBaseUrl: 'https://api.openai.com/v1',
  maxTokensField: 'max_completion_tokens',
  reasoningEfforts: ALL_REASONING_EFFORTS.filter((effort) => effort !== 'max'),
};

/** The OpenAI adapter: chat (streamed or not) and embeddings. */
export const openaiAdapter: ProviderAdapter = createOpenAICompatibleAdapter(openaiProfile);
