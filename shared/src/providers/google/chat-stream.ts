/**
 * Gemini `streamGenerateContent?alt=sse` events to chat chunks, per
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent and
 * https://ai.google.dev/gemini-api/docs/text-generation#streaming-responses: every SSE `data` is a
 * whole GenerateContentResponse holding the next parts; function calls arrive whole (one
 * tool_calls delta each, with its index, id, name and full arguments); the last event carries
 * finishReason; usageMetadata comes on many events and the last one seen is the total; grounding
 * sources come with the last events and are sent (deduplicated, the whole list so far) on the
 * chunk of the event that brought new ones. An event `{"error": {code, message, status}}` after
 * the 200 is a failure.
 */

import { sanitizeUpstreamText } from '../../upstream/upstream-text.ts';
import type {
  ChatChunk,
  ChatStreamTranslator,
  ChunkChoice,
  Citation,
  NormalizedUsage,
  SseEvent,
  ToolCallDelta,
} from '../chat-types.ts';
import { UpstreamProtocolError, UpstreamStreamError } from '../chat-types.ts';
import { collectCitations, finishReasonOf, toolCallOf, usageOf } from './chat-response.ts';
import { errorBodySchema, type GeminiCandidate, parseGenerateContentResponse } from './wire-response.ts';

function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamProtocolError('Gemini stream event is not JSON');
  }
}

function throwIfError(json: unknown): void {
  if (typeof json !== 'object' || json === null || !('error' in json)) return;
  const parsed = errorBodySchema.safeParse(json);
  const error = parsed.success ? parsed.data.error : {};
  const message = error.message ? sanitizeUpstreamText(error.message) : 'stream failed';
  throw new UpstreamStreamError(error.code ?? 500, `Gemini ${error.status ?? 'error'}: ${message}`);
}

/** Per-stream state: which candidates already sent their role, tool-call counters, citations. */
class GeminiStreamTranslator implements ChatStreamTranslator {
  readonly #roleSent = new Set<number>();
  readonly #toolCalls = new Map<number, number>();
  readonly #citations = new Map<string, Citation>();
  #usage: NormalizedUsage | undefined;

  onEvent(event: SseEvent): ChatChunk[] {
    if (event.data.trim() === '') return [];
    const json = parseData(event.data);
    throwIfError(json);
    const response = parseGenerateContentResponse(json);
    if (response.usageMetadata) this.#usage = usageOf(response.usageMetadata);
    const citationsBefore = this.#citations.size;
    const choices: ChunkChoice[] = [];
    for (const [position, candidate] of (response.candidates ?? []).entries()) {
      collectCitations(candidate, this.#citations);
      const choice = this.#choiceOf(candidate, candidate.index ?? position);
      if (choice) choices.push(choice);
    }
    if ((response.candidates ?? []).length === 0 && response.promptFeedback?.blockReason) {
      choices.push(this.#blocked());
    }
    const chunk: ChatChunk = { choices };
    if (this.#citations.size > citationsBefore) chunk.citations = [...this.#citations.values()];
    return choices.length > 0 || chunk.citations ? [chunk] : [];
  }

  finish(): { usage: NormalizedUsage | undefined } {
    return { usage: this.#usage };
  }

  #choiceOf(candidate: GeminiCandidate, index: number): ChunkChoice | undefined {
    const delta: ChunkChoice['delta'] = this.#roleSent.has(index) ? {} : { role: 'assistant' };
    this.#roleSent.add(index);
    const toolCalls: ToolCallDelta[] = [];
    for (const part of candidate.content?.parts ?? []) {
      const n = this.#toolCalls.get(index) ?? 0;
      const call = toolCallOf(part, index, n);
      if (call) {
        toolCalls.push({ index: n, id: call.id, type: 'function', function: call.function });
        this.#toolCalls.set(index, n + 1);
      } else if (part.text) {
        // Empty text parts (Gemini ends streams with one, sometimes carrying a signature) add nothing.
        const key = part.thought ? 'reasoning_content' : 'content';
        delta[key] = (delta[key] ?? '') + part.text;
      }
    }
    if (toolCalls.length > 0) delta.tool_calls = toolCalls;
    const finish = candidate.finishReason
      ? finishReasonOf(candidate.finishReason, (this.#toolCalls.get(index) ?? 0) > 0)
      : null;
    if (Object.keys(delta).length === 0 && finish === null) return undefined;
    return { index, delta, finish_reason: finish };
  }

  #blocked(): ChunkChoice {
    const delta: ChunkChoice['delta'] = this.#roleSent.has(0) ? {} : { role: 'assistant' };
    this.#roleSent.add(0);
    return { index: 0, delta, finish_reason: 'content_filter' };
  }
}

/** A fresh translator for one Gemini stream. */
export function createGeminiStreamTranslator(): ChatStreamTranslator {
  return new GeminiStreamTranslator();
}
