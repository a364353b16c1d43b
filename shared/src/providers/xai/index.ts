/**
 * xAI (`https://api.x.ai/v1`, Bearer key): chat completions only.
 *
 * Profile facts, from xAI's chat completions reference and reasoning guide: the cap is sent as
 * `max_completion_tokens`; `reasoning_effort` is low|high on grok-3-mini and none|low|medium|high
 * on newer models (grok-3, grok-4 and grok-4-fast-reasoning answer an error for it, which is the
 * provider's own 400); only grok-3-mini returns `reasoning_content`; usage reports
 * `completion_tokens_details.reasoning_tokens` ON TOP of `completion_tokens` (total = prompt +
 * completion + reasoning), so they are added to the billed output. Images are accepted as
 * `image_url` parts; `file` parts are not (rejected with a clear 400).
 *
 * Web search: xAI retired Live Search (`search_parameters` on chat completions answers 410 Gone,
 * "Live search is deprecated. Please switch to the Agent Tools API", May 2026), and its
 * replacement lives on the Responses API only, so `web_search` is rejected here with a clear 400.
 * Top-level `citations` in answers are still mapped should they appear.
 */
import type { ProviderAdapter } from '../chat-types.ts';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible.ts';
import type { OpenAICompatibleProfile } from '../openai-compatible/profile.ts';

export const xaiProfile: OpenAICompatibleProfile = {
  name: 'xAI',
  defaultBaseUrl: 'https://api.x.ai/v1',
  maxTokensField: 'max_completion_tokens',
  streamOptions: true,
  developerRole: 'system',
  messageNames: 'all',
  contentParts: 'images',
  seedField: 'seed',
  reasoningEfforts: ['none', 'low', 'medium', 'high'],
  responseFormats: ['text', 'json_object', 'json_schema'],
  webSearch: 'unsupported',
  unsupportedFields: [],
  droppedFields: [],
  reasoningInCompletion: false,
};

/** The xAI adapter: chat (streamed or not). */
export const xaiAdapter: ProviderAdapter = createOpenAICompatibleAdapter(xaiProfile);
