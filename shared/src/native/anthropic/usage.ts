/**
 * Usage of Anthropic's Messages API, as the gateway bills it. Wire format per the Messages API
 * reference (https://docs.anthropic.com/en/api/messages) and the official TypeScript SDK
 * (`Usage`, `MessageDeltaUsage`, `CacheCreation`, `ServerToolUsage` in
 * src/resources/messages/messages.ts):
 *
 * - a Message's `usage`: `input_tokens` (uncached input only), `cache_creation_input_tokens`,
 *   `cache_read_input_tokens`, `cache_creation: {ephemeral_5m_input_tokens,
 *   ephemeral_1h_input_tokens}`, `output_tokens` (thinking included; `output_tokens_details.
 *   thinking_tokens` is the part spent thinking), `server_tool_use: {web_search_requests,
 *   web_fetch_requests}`, `service_tier`. Total input = input + cache writes + cache reads.
 * - a stream (https://docs.anthropic.com/en/docs/build-with-claude/streaming): `message_start`
 *   carries `message.usage` (input and cache counts, with the TTL breakdown); each
 *   `message_delta` carries cumulative `usage` (`output_tokens`, `server_tool_use`, and input
 *   counts that are null when unchanged); `message_stop` ends it.
 *
 * Pricing decisions: cache writes without the TTL breakdown are 5-minute writes (the default
 * lifetime, and all that existed before the breakdown); web fetches cost only their tokens
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-fetch-tool); a `priority`
 * service tier is priced by a commitment the catalogue does not know, so it is unpriced.
 */
import { count, isObject, type NativeTokenUsage, tokenUsage, type UnpricedPart } from '../native-usage.ts';
import { SseObserver } from '../stream/sse-observer.ts';
import type { StreamUsage, UsageAccumulator } from '../stream/usage-accumulator.ts';

/** The gateway's usage from an Anthropic `usage` object (of a Message, or merged from a stream). */
export function anthropicUsage(usage: Readonly<Record<string, unknown>>): NativeTokenUsage {
  const creation = isObject(usage.cache_creation) ? usage.cache_creation : {};
  const written = count(usage.cache_creation_input_tokens);
  const write1h = count(creation.ephemeral_1h_input_tokens);
  const write5m = Math.max(written - write1h, count(creation.ephemeral_5m_input_tokens));
  const serverTools = isObject(usage.server_tool_use) ? usage.server_tool_use : {};
  const details = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const unpriced: UnpricedPart[] = [];
  if (usage.service_tier === 'priority') unpriced.push({ name: 'priority_tier_requests', quantity: 1 });
  return tokenUsage({
    inputTokens: count(usage.input_tokens),
    cacheReadTokens: count(usage.cache_read_input_tokens),
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    outputTokens: count(usage.output_tokens),
    reasoningTokens: count(details.thinking_tokens),
    webSearchRequests: count(serverTools.web_search_requests),
    unpriced,
  });
}

/** The usage of a non-streamed Messages answer (its JSON body); undefined when it has none. */
export function anthropicResponseUsage(body: unknown): NativeTokenUsage | undefined {
  return isObject(body) && isObject(body.usage) ? anthropicUsage(body.usage) : undefined;
}

/** Token counting (`/v1/messages/count_tokens`) is free: nothing to bill. */
export const ANTHROPIC_COUNT_TOKENS_USAGE: NativeTokenUsage = tokenUsage({});

/**
 * Folds a `message_delta` usage into the usage so far: its fields are cumulative totals, and a
 * null or absent one means "unchanged". The TTL breakdown only comes with `message_start`.
 */
function mergeDelta(
  base: Readonly<Record<string, unknown>>,
  delta: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(delta)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

/** Observes a Messages event stream for its usage. */
export class AnthropicUsageAccumulator implements UsageAccumulator {
  readonly #sse = new SseObserver((event) => this.#onEvent(event.event, event.data));
  #usage: Record<string, unknown> | undefined;
  #complete = false;

  push(chunk: Uint8Array): void {
    this.#sse.push(chunk);
  }

  finish(): StreamUsage {
    this.#sse.end();
    return {
      usage: this.#usage === undefined ? undefined : anthropicUsage(this.#usage),
      complete: this.#complete,
      problem: this.#sse.problem,
    };
  }

  #onEvent(eventName: string | undefined, data: string): void {
    // Only these events carry usage or end the stream; others (content deltas, pings) are skipped
    // unparsed. The `event:` name repeats the data's `type`, so it is enough to choose.
    const name = eventName ?? typeInData(data);
    if (name !== 'message_start' && name !== 'message_delta' && name !== 'message_stop') return;
    if (name === 'message_stop') {
      this.#complete = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.#sse.stop(`${name} event is not JSON`);
      return;
    }
    if (!isObject(parsed)) return;
    if (name === 'message_start' && isObject(parsed.message) && isObject(parsed.message.usage)) {
      this.#usage = { ...parsed.message.usage };
    } else if (name === 'message_delta' && isObject(parsed.usage)) {
      this.#usage = mergeDelta(this.#usage ?? {}, parsed.usage);
    }
  }
}

/** The `type` of an event sent without an `event:` line (Anthropic names every event; a safety net). */
function typeInData(data: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return isObject(parsed) && typeof parsed.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}
