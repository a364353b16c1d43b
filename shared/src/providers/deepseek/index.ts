/**
 * DeepSeek (`https://api.deepseek.com`, Bearer key): chat completions only.
 *
 * Profile facts, from DeepSeek's API docs (Create Chat Completion, Reasoning Model, Context
 * Caching, JSON Output): the cap is `max_tokens`; `stream_options.include_usage` is accepted;
 * roles are system/user/assistant/tool (a `developer` message is sent as `system`);
 * `response_format` is `text` or `json_object` only; there is no `reasoning_effort`
 * (deepseek-reasoner always reasons and returns `reasoning_content`, deepseek-chat never does),
 * no `n`, no `logit_bias` and no web search; cache hits are `usage.prompt_cache_hit_tokens`.
 * Message content must be a string (a part list is answered 400 "invalid type: sequence, expected
 * a string"), so text parts are joined and image/file parts rejected.
 */
import type { ProviderAdapter } from '../chat-types.ts';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible.ts';
import type { OpenAICompatibleProfile } from '../openai-compatible/profile.ts';

export const deepseekProfile: OpenAICompatibleProfile = {
  name: 'DeepSeek',
  defaultBaseUrl: 'https://api.deepseek.com',
  maxTokensField: 'max_tokens',
  streamOptions: true,
  developerRole: 'system',
  messageNames: 'all',
  contentParts: 'text-as-string',
  seedField: 'seed',
  reasoningEfforts: [],
  responseFormats: ['text', 'json_object'],
  webSearch: 'unsupported',
  unsupportedFields: ['n', 'logit_bias'],
  droppedFields: [],
  reasoningInCompletion: true,
};

/** The DeepSeek adapter: chat (streamed or not). */
export const deepseekAdapter: ProviderAdapter = createOpenAICompatibleAdapter(deepseekProfile);
