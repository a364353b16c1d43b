/**
 * Small mappings shared by the non-streamed and the streamed answer: usage, content chunks,
 * finish reasons, citations. Pure functions over the shapes of `wire-schemas.ts`.
 */
import type { Citation, FinishReason, NormalizedUsage } from '../chat-types.ts';
import type { OpenAICompatibleProfile } from './profile.ts';
import type { WireAnnotation, WireCitations, WireContent, WireUsage } from './wire-schemas.ts';

/**
 * Usage as the gateway bills it. `completion_tokens` includes reasoning in OpenAI's convention;
 * xAI reports reasoning on top of it. `total_tokens` tells which convention the body follows;
 * without it the profile decides. Cached tokens: OpenAI/xAI `prompt_tokens_details.cached_tokens`,
 * DeepSeek `prompt_cache_hit_tokens`.
 */
export function normalizeUsage(usage: WireUsage, profile: OpenAICompatibleProfile): NormalizedUsage {
  const input = usage.prompt_tokens;
  const completion = usage.completion_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  const output = reasoningIsAdditive(usage, completion, reasoning, profile)
    ? completion + reasoning
    : completion;
  return {
    inputTokens: input,
    cachedInputTokens: Math.min(cached, input),
    outputTokens: output,
    reasoningTokens: reasoning,
  };
}

function reasoningIsAdditive(
  usage: WireUsage,
  completion: number,
  reasoning: number,
  profile: OpenAICompatibleProfile,
): boolean {
  if (reasoning === 0) return false;
  if (reasoning > completion) return true;
  const total = usage.total_tokens;
  if (total !== undefined && total !== null) {
    if (total === usage.prompt_tokens + completion + reasoning) return true;
    if (total === usage.prompt_tokens + completion) return false;
  }
  return !profile.reasoningInCompletion;
}

/** Answer text and reasoning text of a content that is a string or Mistral's list of chunks. */
export function splitContent(content: WireContent): {
  text: string | undefined;
  thinking: string | undefined;
} {
  if (content === undefined || content === null) return { text: undefined, thinking: undefined };
  if (typeof content === 'string') return { text: content, thinking: undefined };
  let text: string | undefined;
  let thinking: string | undefined;
  for (const chunk of content) {
    if (chunk.type === 'text' && chunk.text !== undefined) text = (text ?? '') + chunk.text;
    if (chunk.type === 'thinking') {
      for (const part of chunk.thinking ?? []) {
        if (part.text !== undefined) thinking = (thinking ?? '') + part.text;
      }
    }
  }
  return { text, thinking };
}

/** Upstream finish reason -> the spec's; `error` (Mistral) is reported separately by the callers. */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'length':
    case 'model_length':
    // DeepSeek: generation cut short by the upstream's capacity; the answer is truncated.
    case 'insufficient_system_resource':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      // `stop`, `end_turn`, `eos` and any newer natural stop.
      return 'stop';
  }
}

/** Citations from OpenAI `url_citation` annotations and from top-level URL lists (xAI). */
export function collectCitations(
  annotations: WireAnnotation[] | null | undefined,
  topLevel: WireCitations,
): Citation[] {
  const citations: Citation[] = [];
  const seen = new Set<string>();
  const add = (url: string, title: string | null | undefined) => {
    if (seen.has(url)) return;
    seen.add(url);
    citations.push({ title: title ?? null, url });
  };
  for (const annotation of annotations ?? []) {
    if (annotation.type === 'url_citation' && annotation.url_citation) {
      add(annotation.url_citation.url, annotation.url_citation.title);
    }
  }
  for (const entry of topLevel ?? []) {
    if (typeof entry === 'string') add(entry, null);
    else add(entry.url, entry.title);
  }
  return citations;
}

/** Tool-call arguments as the JSON string the spec requires (Mistral may send an object). */
export function argumentsText(value: string | Record<string, unknown>): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
