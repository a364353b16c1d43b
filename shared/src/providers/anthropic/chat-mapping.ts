/**
 * Mappings shared by the non-streamed and streamed answers: stop reasons, usage and citations.
 * Followed: `stop_reason` values and usage fields of the Messages API reference
 * (https://docs.anthropic.com/en/api/messages); "total input tokens is the sum of `input_tokens`,
 * `cache_creation_input_tokens` and `cache_read_input_tokens`" (prompt caching docs); thinking
 * tokens are billed inside `output_tokens`, with `output_tokens_details.thinking_tokens` as their
 * share where the API reports it; web search citations from
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool.
 */
import type { Citation, FinishReason, NormalizedUsage } from '../chat-types.ts';
import type { AnthropicDeltaUsage, AnthropicUsage } from './response-schemas.ts';

/**
 * Anthropic `stop_reason` → the convention's `finish_reason`. `pause_turn` (a long server-tool
 * turn paused; the client may resend to continue) ends this answer, so it reads as `stop`; an
 * unknown future reason also reads as `stop` rather than failing a finished answer.
 */
export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Usage as billed: cache reads and writes are input tokens; cache reads are the cached share. */
export function normalizeUsage(usage: AnthropicUsage): NormalizedUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + cacheRead,
    cachedInputTokens: cacheRead,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
  };
}

/** Folds a `message_delta` usage (cumulative; null input fields mean "unchanged") into the last known usage. */
export function mergeUsage(base: AnthropicUsage, delta: AnthropicDeltaUsage): AnthropicUsage {
  return {
    input_tokens: delta.input_tokens ?? base.input_tokens,
    output_tokens: delta.output_tokens,
    cache_creation_input_tokens: delta.cache_creation_input_tokens ?? base.cache_creation_input_tokens,
    cache_read_input_tokens: delta.cache_read_input_tokens ?? base.cache_read_input_tokens,
    output_tokens_details: delta.output_tokens_details ?? base.output_tokens_details,
  };
}

/** Sources in the order first seen, one per URL (the first title seen for it wins). */
export class CitationList {
  readonly #byUrl = new Map<string, Citation>();

  /** Adds a source; returns true when its URL was new. */
  add(url: string | undefined, title: string | null | undefined): boolean {
    if (url === undefined || url === '' || this.#byUrl.has(url)) return false;
    this.#byUrl.set(url, { title: title ?? null, url });
    return true;
  }

  get size(): number {
    return this.#byUrl.size;
  }

  list(): Citation[] {
    return [...this.#byUrl.values()];
  }
}
