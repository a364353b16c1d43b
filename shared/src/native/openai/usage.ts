/**
 * Usage of OpenAI's Responses API, as the gateway bills it. Wire format per the API reference
 * (https://platform.openai.com/docs/api-reference/responses/object) and the official SDK
 * (openai-node, src/resources/responses/responses.ts: `ResponseUsage`, `ResponseCompletedEvent`,
 * `ResponseIncompleteEvent`, `ResponseFailedEvent`):
 *
 * - a Response's `usage`: `input_tokens` (all input), `input_tokens_details.cached_tokens` (the
 *   part read from the prompt cache), `input_tokens_details.cache_write_tokens` (newer models),
 *   `output_tokens` (reasoning included), `output_tokens_details.reasoning_tokens`;
 * - a stream's usage arrives once, in its final event: `response.completed`, or
 *   `response.incomplete` (stopped at `max_output_tokens` or by the content filter: billed too),
 *   or `response.failed`; each carries the whole `response`. There is no `[DONE]`.
 *
 * Built-in tools are billed per call on top of tokens (https://platform.openai.com/docs/pricing):
 * `web_search_call` output items count as web searches (priced by `web_search_per_1k`); file
 * search, code interpreter and image generation calls, cache writes, and the flex and priority
 * service tiers have no catalogue price, so they are reported as unpriced and refused.
 */
import { count, isObject, type NativeTokenUsage, tokenUsage, type UnpricedPart } from '../native-usage.ts';
import { SseObserver } from '../stream/sse-observer.ts';
import type { StreamUsage, UsageAccumulator } from '../stream/usage-accumulator.ts';

/** Output item types billed per call with no catalogue price, and the part name they are refused under. */
const UNPRICED_CALLS: Readonly<Record<string, string>> = {
  file_search_call: 'file_search_calls',
  code_interpreter_call: 'code_interpreter_calls',
  image_generation_call: 'image_generation_calls',
};

/** The events that end a Responses stream, each carrying the final `response`. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The gateway's usage of a Response object; undefined when it has no `usage` (e.g. failed early). */
export function responsesUsage(response: unknown): NativeTokenUsage | undefined {
  if (!isObject(response) || !isObject(response.usage)) return undefined;
  const usage = response.usage;
  const inputDetails = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const cached = count(inputDetails.cached_tokens);
  const written = count(inputDetails.cache_write_tokens);
  const calls = outputCallCounts(response.output);
  const unpriced: UnpricedPart[] = [{ name: 'cache_write_tokens', quantity: written }];
  for (const [type, name] of Object.entries(UNPRICED_CALLS))
    unpriced.push({ name, quantity: calls.get(type) ?? 0 });
  const tier = response.service_tier;
  if (tier === 'flex' || tier === 'priority') unpriced.push({ name: `${tier}_tier_requests`, quantity: 1 });
  return tokenUsage({
    inputTokens: Math.max(count(usage.input_tokens) - cached - written, 0),
    cacheReadTokens: cached,
    outputTokens: count(usage.output_tokens),
    reasoningTokens: count(outputDetails.reasoning_tokens),
    webSearchRequests: calls.get('web_search_call') ?? 0,
    unpriced,
  });
}

/** How many output items of each type a response holds. */
function outputCallCounts(output: unknown): Map<string, number> {
  const counts = new Map<string, number>();
  if (!Array.isArray(output)) return counts;
  for (const item of output) {
    if (isObject(item) && typeof item.type === 'string')
      counts.set(item.type, (counts.get(item.type) ?? 0) + 1);
  }
  return counts;
}

/** Observes a Responses event stream for the usage of its final event. */
export class ResponsesUsageAccumulator implements UsageAccumulator {
  readonly #sse = new SseObserver((event) => this.#onEvent(event.event, event.data));
  #usage: NativeTokenUsage | undefined;
  #complete = false;

  push(chunk: Uint8Array): void {
    this.#sse.push(chunk);
  }

  finish(): StreamUsage {
    this.#sse.end();
    return { usage: this.#usage, complete: this.#complete, problem: this.#sse.problem };
  }

  #onEvent(name: string | undefined, data: string): void {
    // Every event names itself in `event:` (and repeats it as `type`); only the final ones are parsed.
    if (name !== undefined && !FINAL_EVENTS.has(name)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      if (name !== undefined) this.#sse.stop(`${name} event is not JSON`);
      return;
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string' || !FINAL_EVENTS.has(parsed.type)) return;
    this.#complete = true;
    this.#usage = responsesUsage(parsed.response);
  }
}
