import type { NormalizedUsage } from './chat-types.ts';

/**
 * The chat-completion convention's `usage` object for a normalized usage: what `/v1` answers and
 * what the native simulator answers as OpenAI.
 */
export function usageObject(usage: NormalizedUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
