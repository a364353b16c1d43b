/**
 * OpenAI-compatible SSE stream -> chat chunks.
 *
 * Event sequence followed: OpenAI streaming (`data: <ChatCompletionChunk>` events with
 * `choices[].delta`, tool-call argument deltas keyed by `index`, a last chunk with empty `choices`
 * and `usage` when `stream_options.include_usage` is set, `data: [DONE]`; an error after the
 * status line arrives as `data: {"error": {...}}` or as an `event: error` event, as openai-node's
 * `Stream` reads it). Variants: Mistral puts `usage` on its last chunk next to `finish_reason` and
 * may stream content as `thinking`/`text` chunks; Groq reports `x_groq.usage` on its last chunk;
 * DeepSeek and xAI stream `delta.reasoning_content`, Groq `delta.reasoning`; xAI and
 * Perplexity-style upstreams repeat top-level `citations`.
 *
 * The usage-only chunk is never forwarded: usage is returned by `finish()`, and the gateway
 * decides whether the client asked for it.
 */

import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import {
  type ChatChunk,
  type ChatStreamTranslator,
  type ChunkChoice,
  type NormalizedUsage,
  type SseEvent,
  type ToolCallDelta,
  UpstreamProtocolError,
  UpstreamStreamError,
} from '../chat-types.ts';
import type { OpenAICompatibleProfile } from './profile.ts';
import {
  argumentsText,
  collectCitations,
  mapFinishReason,
  normalizeUsage,
  splitContent,
} from './wire-mapping.ts';
import { type WireChunk, type WireToolCallDelta, wireChunkSchema, wireErrorSchema } from './wire-schemas.ts';

type WireChunkChoice = WireChunk['choices'][number];
type WireDelta = NonNullable<WireChunkChoice['delta']>;

const EMPTY_DELTA: WireDelta = {};

/** A fresh translator for one upstream stream. */
export function createChatStreamTranslator(profile: OpenAICompatibleProfile): ChatStreamTranslator {
  let usage: NormalizedUsage | undefined;
  const citedUrls = new Set<string>();
  return {
    onEvent(event: SseEvent): ChatChunk[] {
      if (event.data === '[DONE]') return [];
      const json = parseData(event.data, profile);
      if (event.event === 'error' || hasErrorKey(json)) throw streamError(json);
      const parsed = wireChunkSchema.safeParse(json);
      if (!parsed.success)
        throw new UpstreamProtocolError(`${profile.name} stream chunk does not have the documented shape.`);
      const chunk = parsed.data;
      // The last usage seen wins: some upstreams repeat a cumulative usage on every chunk.
      const wireUsage = chunk.usage ?? chunk.x_groq?.usage;
      if (wireUsage) usage = normalizeUsage(wireUsage, profile);
      const choices = chunk.choices.map((choice) => mapChunkChoice(choice, profile));
      const citations = newCitations(chunk, citedUrls);
      if (choices.length === 0 && citations.length === 0) return [];
      return [{ choices, ...(citations.length > 0 ? { citations } : {}) }];
    },
    finish() {
      return { usage };
    },
  };
}

function parseData(data: string, profile: OpenAICompatibleProfile): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamProtocolError(`${profile.name} stream event is not JSON.`);
  }
}

function hasErrorKey(json: unknown): json is { error: unknown } {
  return typeof json === 'object' && json !== null && 'error' in json && json.error != null;
}

const STATUS_BY_ERROR_NAME: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  context_length_exceeded: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
  server_error: 500,
  internal_error: 500,
  api_error: 500,
  overloaded: 503,
  overloaded_error: 503,
  service_unavailable: 503,
};

/** The in-stream error as `UpstreamStreamError`: status from a numeric `code`, else from its name, else 500. */
function streamError(json: unknown): UpstreamStreamError {
  const inner = hasErrorKey(json) ? json.error : json;
  const parsed = wireErrorSchema.safeParse(typeof inner === 'string' ? { message: inner } : inner);
  const error = parsed.success ? parsed.data : {};
  const message = error.message ? sanitizeUpstreamText(error.message) : '';
  return new UpstreamStreamError(
    errorStatus(error.code, error.type),
    message || 'The provider failed mid-stream.',
  );
}

function errorStatus(code: string | number | null | undefined, type: string | null | undefined): number {
  const numeric = typeof code === 'number' ? code : Number(code);
  if (Number.isInteger(numeric) && numeric >= 400 && numeric <= 599) return numeric;
  for (const name of [code, type]) {
    if (typeof name === 'string' && STATUS_BY_ERROR_NAME[name] !== undefined)
      return STATUS_BY_ERROR_NAME[name];
  }
  return 500;
}

function mapChunkChoice(choice: WireChunkChoice, profile: OpenAICompatibleProfile): ChunkChoice {
  if (choice.finish_reason === 'error') {
    throw new UpstreamStreamError(500, `${profile.name} ended the generation with an error.`);
  }
  const delta = choice.delta ?? EMPTY_DELTA;
  const { text, thinking } = splitContent(delta.content);
  const content = text ?? delta.refusal ?? undefined;
  const reasoning = delta.reasoning_content ?? delta.reasoning ?? thinking;
  const toolCalls = (delta.tool_calls ?? []).map(mapToolCallDelta);
  return {
    index: choice.index,
    delta: {
      ...(delta.role === 'assistant' ? { role: 'assistant' as const } : {}),
      ...(content === undefined ? {} : { content }),
      ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    finish_reason: choice.finish_reason ? mapFinishReason(choice.finish_reason) : null,
  };
}

/** Keeps the upstream's `index`; Mistral may omit it, and then the position in the list stands in. */
function mapToolCallDelta(call: WireToolCallDelta, position: number): ToolCallDelta {
  const fn = call.function;
  const hasFunction = fn?.name != null || fn?.arguments != null;
  return {
    index: call.index ?? position,
    ...(call.id ? { id: call.id } : {}),
    ...(call.type === 'function' || (call.id && hasFunction) ? { type: 'function' as const } : {}),
    ...(hasFunction
      ? {
          function: {
            ...(fn?.name != null ? { name: fn.name } : {}),
            ...(fn?.arguments != null ? { arguments: argumentsText(fn.arguments) } : {}),
          },
        }
      : {}),
  };
}

/** Citations not sent before: upstreams that list them at the top level repeat them on every chunk. */
function newCitations(chunk: WireChunk, citedUrls: Set<string>) {
  // Most chunks cite nothing: nothing to gather.
  if (!chunk.citations?.length && !chunk.choices.some((choice) => choice.delta?.annotations?.length))
    return [];
  const annotations = chunk.choices.flatMap((choice) => choice.delta?.annotations ?? []);
  const fresh = collectCitations(annotations, chunk.citations).filter(
    (citation) => !citedUrls.has(citation.url),
  );
  for (const citation of fresh) citedUrls.add(citation.url);
  return fresh;
}
