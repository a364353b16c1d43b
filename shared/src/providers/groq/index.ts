/**
 * Groq (`https://api.groq.com/openai/v1`, Bearer key): chat completions only.
 *
 * Profile facts, from Groq's OpenAI-compatibility page and API reference: `logprobs`,
 * `logit_bias`, `top_logprobs`, `messages[].name` and `n` other than 1 are answered 400, so they
 * are rejected up front with a clear message; the cap is `max_completion_tokens`;
 * `stream_options.include_usage` is accepted and the last chunk also carries `x_groq.usage`;
 * `reasoning_effort` is low|medium|high (gpt-oss) or none (qwen3); reasoning text comes back as
 * `message.reasoning` / `delta.reasoning`. `developer` is sent as `system`; `image_url` parts pass
 * (vision models), `file` parts are rejected.
 */
import type { ProviderAdapter } from '../chat-types.ts';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible.ts';
import type { OpenAICompatibleProfile } from '../openai-compatible/profile.ts';

export const groqProfile: OpenAICompatibleProfile = {
  name: 'Groq',
  defaultBaseUrl: 'https://api.groq.com/openai/v1',
  maxTokensField: 'max_completion_tokens',
  streamOptions: true,
  developerRole: 'system',
  messageNames: 'none',
  contentParts: 'images',
  seedField: 'seed',
  reasoningEfforts: ['none', 'low', 'medium', 'high'],
  responseFormats: ['text', 'json_object', 'json_schema'],
  webSearch: 'unsupported',
  unsupportedFields: ['logprobs', 'top_logprobs', 'logit_bias', 'n'],
  droppedFields: [],
  reasoningInCompletion: true,
};

/** The Groq adapter: chat (streamed or not). */
export const groqAdapter: ProviderAdapter = createOpenAICompatibleAdapter(groqProfile);
