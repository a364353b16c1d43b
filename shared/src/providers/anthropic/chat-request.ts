/**
 * A validated chat request → the body of `POST /v1/messages`, following the request shape of the
 * Messages API reference (https://docs.anthropic.com/en/api/messages) and the official SDK's
 * `MessageCreateParams`: `model`, `max_tokens` (required), `messages`, `system`, `stop_sequences`,
 * `temperature` (0 to 1), `top_p`, `tools`, `tool_choice`, `thinking`, `output_config`,
 * `metadata.user_id`, `stream`.
 *
 * Fields without an Anthropic counterpart: those that change what the client gets back or pays for
 * are refused with `UnsupportedFeatureError` (`n` > 1, `logprobs`, `top_logprobs`, `logit_bias`,
 * non-zero `frequency_penalty`/`presence_penalty`, `temperature` above 1); `seed` is dropped (it
 * only asks for best-effort repeatability) and so is `stream_options` (Anthropic always reports
 * usage in the stream).
 */
import type { ChatRequest } from '../chat-types.ts';
import { toAnthropicConversation } from './chat-messages.ts';
import {
  type OutputFormatPlan,
  outputFormatPlan,
  supportsNativeStructuredOutputs,
} from './chat-output-format.ts';
import { type TokenLimits, type TokenPlan, tokenPlan } from './chat-thinking.ts';
import { customTools, toolChoice, webSearchTool } from './chat-tools.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type { MessagesRequestBody, ToolParam } from './wire-types.ts';

/** `max_tokens` when neither the client nor the route gives one (Anthropic requires the field). */
export const DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicBodyTarget {
  nativeModel: string;
  /** The model's output limit from the catalogue, when the gateway knows it. */
  maxOutputTokens?: number;
}

/** The Messages API body for this request; throws `UnsupportedFeatureError` before anything is sent. */
export function toAnthropicBody(
  request: ChatRequest,
  target: AnthropicBodyTarget,
  options: { stream: boolean; defaultMaxTokens: number },
): MessagesRequestBody {
  refuseUnsupported(request);
  const native = supportsNativeStructuredOutputs(target.nativeModel);
  const format = outputFormatPlan(request.response_format, native);
  const tokens = tokenPlan(request, limitsFor(target, options.defaultMaxTokens));
  const search = webSearchTool(request);
  const tools: ToolParam[] = [
    ...customTools(request.tools, native),
    ...(search === undefined ? [] : [search]),
  ];
  refuseConflicts(request, format, tools, tokens);
  const { system, messages } = toAnthropicConversation(request.messages);

  const body: MessagesRequestBody = { model: target.nativeModel, max_tokens: tokens.maxTokens, messages };
  if (system.length > 0) body.system = system;
  if (options.stream) body.stream = true;
  addSampling(body, request);
  if (tokens.thinking !== undefined) body.thinking = tokens.thinking;
  addTools(body, request, tools, format);
  if (format.kind === 'native') body.output_config = format.outputConfig;
  if (request.user !== undefined && request.user !== '') body.metadata = { user_id: request.user };
  return body;
}

function limitsFor(target: AnthropicBodyTarget, defaultMaxTokens: number): TokenLimits {
  if (target.maxOutputTokens === undefined) return { defaultMaxTokens };
  // With the model's limit known, an unset max_tokens means "up to the model's limit", as in the convention.
  return { defaultMaxTokens: target.maxOutputTokens, modelMaxOutputTokens: target.maxOutputTokens };
}

function refuseUnsupported(request: ChatRequest): void {
  const refuse = (param: string, why: string) => {
    throw new UnsupportedFeatureError(param, `Anthropic models do not support ${why}.`);
  };
  if (request.n !== undefined && request.n !== 1) refuse('n', 'more than one choice per request (`n` > 1)');
  if (request.logprobs === true) refuse('logprobs', '`logprobs`');
  if ((request.top_logprobs ?? 0) > 0) refuse('top_logprobs', '`top_logprobs`');
  if (Object.keys(request.logit_bias ?? {}).length > 0) refuse('logit_bias', '`logit_bias`');
  if ((request.frequency_penalty ?? 0) !== 0) refuse('frequency_penalty', '`frequency_penalty`');
  if ((request.presence_penalty ?? 0) !== 0) refuse('presence_penalty', '`presence_penalty`');
  if ((request.temperature ?? 0) > 1) refuse('temperature', '`temperature` above 1 (their range is 0 to 1)');
}

function refuseConflicts(
  request: ChatRequest,
  format: OutputFormatPlan,
  tools: ToolParam[],
  tokens: TokenPlan,
): void {
  if (tokens.thinking !== undefined) refuseWithThinking(request);
  if (format.kind !== 'forced-tool') return;
  if (tools.length > 0) {
    throw new UnsupportedFeatureError(
      'response_format',
      'On this model a JSON response format cannot be combined with `tools` or `web_search`.',
    );
  }
  if (tokens.thinking !== undefined) {
    throw new UnsupportedFeatureError(
      'response_format',
      'On this model a JSON response format cannot be combined with `reasoning_effort`.',
    );
  }
}

// Documented incompatibilities of extended thinking, refused here with a message naming the field.
function refuseWithThinking(request: ChatRequest): void {
  if (request.temperature !== undefined && request.temperature !== 1) {
    throw new UnsupportedFeatureError(
      'temperature',
      'Anthropic models do not accept `temperature` (other than 1) together with `reasoning_effort`.',
    );
  }
  const choice = request.tool_choice;
  if (choice === 'required' || typeof choice === 'object') {
    throw new UnsupportedFeatureError(
      'tool_choice',
      'Anthropic models cannot be forced to call a tool while `reasoning_effort` is set; use `auto`.',
    );
  }
}

function addSampling(body: MessagesRequestBody, request: ChatRequest): void {
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  const stop = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  if (stop.length > 0) body.stop_sequences = stop;
}

function addTools(
  body: MessagesRequestBody,
  request: ChatRequest,
  tools: ToolParam[],
  format: OutputFormatPlan,
): void {
  if (format.kind === 'forced-tool') {
    body.tools = [format.tool];
    body.tool_choice = { type: 'tool', name: format.tool.name };
    return;
  }
  if (tools.length === 0) return;
  body.tools = tools;
  const choice = toolChoice(request.tool_choice, request.parallel_tool_calls);
  if (choice !== undefined) body.tool_choice = choice;
}
