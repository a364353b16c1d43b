/**
 * Gemini `GenerateContentResponse` to the gateway's chat result, per
 * https://ai.google.dev/api/generate-content#generatecontentresponse and
 * https://ai.google.dev/gemini-api/docs/thinking#summaries (parts with `thought: true`),
 * https://ai.google.dev/gemini-api/docs/function-calling (functionCall parts),
 * https://ai.google.dev/gemini-api/docs/google-search (groundingMetadata.groundingChunks[].web).
 *
 * Usage: input = promptTokenCount + toolUsePromptTokenCount (search results fed back to the model
 * are billed as input); cached = cachedContentTokenCount (already part of promptTokenCount);
 * output = candidatesTokenCount + thoughtsTokenCount (Gemini counts thoughts apart, bills them as
 * output); reasoning = thoughtsTokenCount. Absent counts are 0 (Gemini omits zero fields).
 */
import type {
  ChatChoice,
  ChatResult,
  Citation,
  FinishReason,
  NormalizedUsage,
  ToolCall,
} from '../chat-types.ts';
import { UpstreamProtocolError } from '../chat-types.ts';
import { toolCallId } from './tool-call-id.ts';
import {
  type GeminiCandidate,
  type GeminiResponsePart,
  type GeminiUsage,
  parseGenerateContentResponse,
} from './wire-response.ts';

const CONTENT_FILTER_REASONS: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** Gemini's finishReason as a chat finish reason; any other reason (OTHER, LANGUAGE…) ends as `stop`. */
export function finishReasonOf(reason: string | undefined, hadToolCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  return hadToolCalls ? 'tool_calls' : 'stop';
}

/** usageMetadata as billed usage. */
export function usageOf(usage: GeminiUsage | undefined): NormalizedUsage {
  const thoughts = usage?.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0),
    cachedInputTokens: usage?.cachedContentTokenCount ?? 0,
    outputTokens: (usage?.candidatesTokenCount ?? 0) + thoughts,
    reasoningTokens: thoughts,
  };
}

/** Adds a candidate's web grounding sources to `into`, keyed (deduplicated) by URL. */
export function collectCitations(candidate: GeminiCandidate, into: Map<string, Citation>): void {
  for (const chunk of candidate.groundingMetadata?.groundingChunks ?? []) {
    const uri = chunk.web?.uri;
    if (uri && !into.has(uri)) into.set(uri, { title: chunk.web?.title ?? null, url: uri });
  }
}

/** A function-call part as a tool call (arguments re-serialised; Gemini sends them as an object). */
export function toolCallOf(
  part: GeminiResponsePart,
  candidateIndex: number,
  n: number,
): ToolCall | undefined {
  const call = part.functionCall;
  if (!call) return undefined;
  return {
    id: toolCallId(candidateIndex, n, call.id, part.thoughtSignature),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
  };
}

function choiceOf(candidate: GeminiCandidate, position: number): ChatChoice {
  const index = candidate.index ?? position;
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    const call = toolCallOf(part, index, toolCalls.length);
    if (call) toolCalls.push(call);
    else if (part.text !== undefined) (part.thought ? thoughts : texts).push(part.text);
  }
  const message: ChatChoice['message'] = {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thoughts.length > 0) message.reasoning_content = thoughts.join('');
  return {
    index,
    message,
    finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
    logprobs: null,
  };
}

/** The choice Gemini implies when it blocked the prompt itself and returned no candidate. */
export function blockedChoice(): ChatChoice {
  return {
    index: 0,
    message: { role: 'assistant', content: null },
    finish_reason: 'content_filter',
    logprobs: null,
  };
}

/** A non-streamed Gemini answer as the gateway's chat result. */
export function toChatResult(json: unknown): ChatResult {
  const response = parseGenerateContentResponse(json);
  const candidates = response.candidates ?? [];
  if (candidates.length === 0 && !response.promptFeedback?.blockReason) {
    throw new UpstreamProtocolError(
      'Gemini GenerateContentResponse: no candidates and no promptFeedback.blockReason',
    );
  }
  const choices = candidates.length > 0 ? candidates.map(choiceOf) : [blockedChoice()];
  choices.sort((a, b) => a.index - b.index);
  const citations = new Map<string, Citation>();
  for (const candidate of candidates) collectCitations(candidate, citations);
  const result: ChatResult = { choices, usage: usageOf(response.usageMetadata) };
  if (citations.size > 0) result.citations = [...citations.values()];
  return result;
}
