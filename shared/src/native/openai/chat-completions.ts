/**
 * OpenAI's Chat Completions API served natively (`POST /v1/chat/completions` under `/openai`), as
 * the gateway bills it. Wire format per the API reference
 * (https://platform.openai.com/docs/api-reference/chat/object) and the official SDK (openai-node,
 * src/resources/completions.ts: `CompletionUsage`):
 *
 * - a completion's `usage`: `prompt_tokens` (all input), `prompt_tokens_details.cached_tokens`
 *   (read from the prompt cache), `.cache_write_tokens`, `.audio_tokens`, `completion_tokens`
 *   (reasoning and rejected predictions included), `completion_tokens_details.reasoning_tokens`,
 *   `.audio_tokens`;
 * - a stream reports usage only when the request sets `stream_options.include_usage`: every chunk
 *   then has `usage: null` but a last one with empty `choices` and the usage, followed by
 *   `data: [DONE]`. An error after the stream started is a `data: {"error": …}` event.
 *
 * Web search (the search-preview models search on every request, `web_search_options` tunes it) is
 * billed per call, audio tokens and cache writes at prices the catalogue does not have, and the flex
 * and priority tiers at other rates: all are unpriced, refused before or after the call.
 */
import type { Catalogue, CatalogueModel } from '../../catalogue/catalogue.ts';
import { type JsonModelField, type MappedRequest, mapJsonModel } from '../map-json-model.ts';
import { nativeFactsOf } from '../native-model.ts';
import { count, isObject, type NativeTokenUsage, tokenUsage } from '../native-usage.ts';
import { SseObserver } from '../stream/sse-observer.ts';
import type { StreamUsage, UsageAccumulator } from '../stream/usage-accumulator.ts';

export const OPENAI_CHAT_MODEL_FIELD: JsonModelField = { provider: 'openai', types: ['chat'], key: 'model' };

/** A chunk that may carry the usage: `"usage"` followed by an object (not `null`). */
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/** The catalogue model a Chat Completions body names, and its body per OpenAI route. */
export function mapChatCompletionsModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, OPENAI_CHAT_MODEL_FIELD);
}

/** What a Chat Completions request asks for that `model` has no catalogue price for, each named once. */
export function chatCompletionsUnpricedParts(
  model: CatalogueModel,
  body: Readonly<Record<string, unknown>>,
): string[] {
  const parts: string[] = [];
  const searches = model.capabilities.includes('web_search') || isObject(body.web_search_options);
  if (searches && nativeFactsOf(model).prices.web_search_per_1k === undefined) parts.push('web_search');
  if (body.service_tier === 'flex' || body.service_tier === 'priority')
    parts.push(`${body.service_tier}_tier_requests`);
  return parts;
}

/** Whether a streamed Chat Completions request asks for the usage chunk the gateway bills from. */
export function chatStreamReportsUsage(body: Readonly<Record<string, unknown>>): boolean {
  return isObject(body.stream_options) && body.stream_options.include_usage === true;
}

/** The gateway's usage of a completion (or of a stream's usage chunk); undefined when it has none. */
export function chatCompletionsUsage(completion: unknown): NativeTokenUsage | undefined {
  if (!isObject(completion) || !isObject(completion.usage)) return undefined;
  const usage = completion.usage;
  const input = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const output = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const cached = count(input.cached_tokens);
  const written = count(input.cache_write_tokens);
  const tier = completion.service_tier;
  return tokenUsage({
    inputTokens: Math.max(count(usage.prompt_tokens) - cached - written, 0),
    cacheReadTokens: cached,
    outputTokens: count(usage.completion_tokens),
    reasoningTokens: count(output.reasoning_tokens),
    unpriced: [
      { name: 'cache_write_tokens', quantity: written },
      { name: 'audio_tokens', quantity: count(input.audio_tokens) + count(output.audio_tokens) },
      { name: `${String(tier)}_tier_requests`, quantity: tier === 'flex' || tier === 'priority' ? 1 : 0 },
    ],
  });
}

/**
 * Observes a Chat Completions event stream for its usage chunk. The stream is complete once
 * `data: [DONE]` arrived without an error event before it.
 */
export class ChatCompletionsUsageAccumulator implements UsageAccumulator {
  readonly #sse = new SseObserver((event) => this.#onData(event.data));
  #usage: NativeTokenUsage | undefined;
  #done = false;
  #failed = false;

  push(chunk: Uint8Array): void {
    this.#sse.push(chunk);
  }

  finish(): StreamUsage {
    this.#sse.end();
    return { usage: this.#usage, complete: this.#done && !this.#failed, problem: this.#sse.problem };
  }

  #onData(data: string): void {
    if (data === '[DONE]') {
      this.#done = true;
      return;
    }
    // Only a chunk with a usage object or an error is parsed; content chunks are skipped unparsed.
    if (!USAGE_OBJECT.test(data) && !data.includes('"error"')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.#sse.stop('a chat completion chunk is not JSON');
      return;
    }
    if (!isObject(parsed)) return;
    if (parsed.error !== undefined && parsed.error !== null) this.#failed = true;
    else this.#usage = chatCompletionsUsage(parsed) ?? this.#usage;
  }
}
