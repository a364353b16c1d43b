/**
 * OpenAI-compatible non-streamed chat answer -> `ChatResult`.
 *
 * Shapes followed (see `wire-schemas.ts` for each source): OpenAI `ChatCompletion` (message
 * `content`, `refusal`, `tool_calls`, `annotations` of type `url_citation`; usage with
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`);
 * DeepSeek (`reasoning_content`, `prompt_cache_hit_tokens`); xAI (`reasoning_content`, top-level
 * `citations`, reasoning tokens reported on top of `completion_tokens`); Mistral (content chunks
 * `text`/`thinking`, object `arguments`, finish reasons `model_length`/`error`); Groq
 * (`message.reasoning`).
 */
import { type ChatChoice, type ChatResult, type ToolCall, UpstreamProtocolError } from '../chat-types.ts';
import type { OpenAICompatibleProfile } from './profile.ts';
import {
  argumentsText,
  collectCitations,
  mapFinishReason,
  normalizeUsage,
  splitContent,
} from './wire-mapping.ts';
import { type WireCompletion, wireCompletionSchema } from './wire-schemas.ts';

type WireChoice = WireCompletion['choices'][number];

/** Maps a parsed JSON answer; throws `UpstreamProtocolError` when it lacks the documented shape. */
export function fromChatResponse(json: unknown, profile: OpenAICompatibleProfile): ChatResult {
  const parsed = wireCompletionSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : ` at ${issue.path.join('.') || 'the top level'}`;
    throw new UpstreamProtocolError(
      `${profile.name} chat answer does not have the documented shape${where}.`,
    );
  }
  const answer = parsed.data;
  if (answer.usage === undefined || answer.usage === null) {
    // Without usage the request cannot be billed; an answer we cannot bill is not served.
    throw new UpstreamProtocolError(`${profile.name} chat answer carries no usage.`);
  }
  const citations = collectCitations(
    answer.choices.flatMap((choice) => choice.message.annotations ?? []),
    answer.citations,
  );
  return {
    choices: answer.choices.map((choice) => mapChoice(choice, profile)),
    ...(citations.length > 0 ? { citations } : {}),
    usage: normalizeUsage(answer.usage, profile),
  };
}

function mapChoice(choice: WireChoice, profile: OpenAICompatibleProfile): ChatChoice {
  const { message } = choice;
  const { text, thinking } = splitContent(message.content);
  const toolCalls = (message.tool_calls ?? []).map(
    (call): ToolCall => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: argumentsText(call.function.arguments) },
    }),
  );
  const reasoning = message.reasoning_content ?? message.reasoning ?? thinking;
  return {
    index: choice.index,
    message: {
      role: 'assistant',
      // A refusal is the model's answer; the spec's message has no `refusal`, so it is the content.
      content: text === undefined || text === '' ? (message.refusal ?? text ?? null) : text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(reasoning ? { reasoning_content: reasoning } : {}),
    },
    finish_reason: finishReason(choice, toolCalls.length > 0, profile),
    logprobs: choice.logprobs ?? null,
  };
}

function finishReason(choice: WireChoice, hasToolCalls: boolean, profile: OpenAICompatibleProfile) {
  const reason = choice.finish_reason;
  if (reason === 'error') {
    throw new UpstreamProtocolError(`${profile.name} ended the generation with an error.`);
  }
  if (reason === undefined || reason === null) return hasToolCalls ? 'tool_calls' : 'stop';
  return mapFinishReason(reason);
}
