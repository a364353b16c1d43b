/**
 * The demo provider's chat: an offline, deterministic SIMULATOR (no model behind it), so the
 * gateway works end to end with no internet. Same request, same answer, same usage.
 *
 * Behaviour:
 * - text: `Demo answer to: <first 200 characters of the last user message>`; after a tool result
 *   (last message has role `tool`): `Demo answer using the tool result: <first 200 characters>`;
 * - tool call: when tools are given, `tool_choice` is not `none`, and the last user message
 *   mentions a tool's name (case-insensitive); `tool_choice` naming a function calls that one,
 *   `required` calls the first tool when none is mentioned. Arguments: the tool's required
 *   parameters with placeholder values of the declared JSON types (`{}` when none);
 * - `response_format` json_schema: JSON with the schema's required keys (placeholder values);
 *   json_object: `{"answer": "<the text answer>"}`;
 * - `reasoning_effort` other than `none`: a short `reasoning_content`;
 * - `stop`: the answer is cut before the first stop sequence; `max_completion_tokens` /
 *   `max_tokens`: the answer is cut to the cap (finish `length`);
 * - `n`: n identical choices; usage by the rule of `demo-tokens.ts`, summed over choices.
 */
import type {
  ChatChoice,
  ChatChunk,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChunkChoice,
  FinishReason,
  NormalizedUsage,
  Tool,
  ToolCall,
} from '../chat-types.ts';
import { demoInputTokens, demoTokens, messageText } from './demo-tokens.ts';
import { placeholderFor } from './schema-placeholder.ts';

const QUOTE_LENGTH = 200;

interface DemoAnswer {
  content: string | null;
  reasoning: string | undefined;
  toolCalls: ToolCall[];
  finish: FinishReason;
}

function lastMessage(messages: readonly ChatMessage[], role?: ChatMessage['role']): ChatMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message !== undefined && (role === undefined || message.role === role)) return message;
  }
  return undefined;
}

function chosenTool(request: ChatRequest, question: string): Tool | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return undefined;
  if (typeof choice === 'object') return tools.find((tool) => tool.function.name === choice.function.name);
  const lower = question.toLowerCase();
  const mentioned = tools.find((tool) => lower.includes(tool.function.name.toLowerCase()));
  return mentioned ?? (choice === 'required' ? tools[0] : undefined);
}

function textAnswer(request: ChatRequest, question: string): string {
  const last = lastMessage(request.messages);
  const text =
    last?.role === 'tool'
      ? `Demo answer using the tool result: ${messageText(last).slice(0, QUOTE_LENGTH)}`
      : `Demo answer to: ${question.slice(0, QUOTE_LENGTH)}`;
  const format = request.response_format;
  if (format?.type === 'json_schema') return JSON.stringify(placeholderFor(format.json_schema.schema ?? {}));
  if (format?.type === 'json_object') return JSON.stringify({ answer: text });
  return text;
}

/** Applies `stop` then the output-token cap, as an upstream would. */
function bounded(request: ChatRequest, text: string): { content: string; finish: FinishReason } {
  let content = text;
  const stops = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  for (const stop of stops) {
    const at = stop === '' ? -1 : content.indexOf(stop);
    if (at >= 0) content = content.slice(0, at);
  }
  const cap = request.max_completion_tokens ?? request.max_tokens;
  if (cap !== undefined && demoTokens(content) > cap)
    return { content: content.slice(0, cap * 4), finish: 'length' };
  return { content, finish: 'stop' };
}

function answer(request: ChatRequest): DemoAnswer {
  const lastUser = lastMessage(request.messages, 'user');
  const question = lastUser === undefined ? '' : messageText(lastUser);
  const effort = request.reasoning_effort;
  const reasoning =
    effort === undefined || effort === 'none'
      ? undefined
      : `Simulated reasoning (${effort} effort): the question has ${question.length} characters.`;
  const tool = lastMessage(request.messages)?.role === 'tool' ? undefined : chosenTool(request, question);
  if (tool !== undefined) {
    const args = JSON.stringify(placeholderFor(tool.function.parameters ?? { type: 'object' }) ?? {});
    const call: ToolCall = {
      id: 'call_demo_0',
      type: 'function',
      function: { name: tool.function.name, arguments: args },
    };
    return { content: null, reasoning, toolCalls: [call], finish: 'tool_calls' };
  }
  const { content, finish } = bounded(request, textAnswer(request, question));
  return { content, reasoning, toolCalls: [], finish };
}

function usageOf(request: ChatRequest, demo: DemoAnswer): NormalizedUsage {
  const choices = request.n ?? 1;
  const reasoning = demoTokens(demo.reasoning ?? '');
  let visible = demoTokens(demo.content ?? '');
  for (const call of demo.toolCalls) visible += demoTokens(call.function.arguments);
  return {
    inputTokens: demoInputTokens(request.messages),
    cachedInputTokens: 0,
    outputTokens: choices * (visible + reasoning),
    reasoningTokens: choices * reasoning,
  };
}

function indexes(request: ChatRequest): number[] {
  return Array.from({ length: request.n ?? 1 }, (_, index) => index);
}

/** A non-streamed answer. */
function complete(request: ChatRequest): ChatResult {
  const demo = answer(request);
  const choices = indexes(request).map(
    (index): ChatChoice => ({
      index,
      message: {
        role: 'assistant',
        content: demo.content,
        ...(demo.toolCalls.length > 0 ? { tool_calls: demo.toolCalls } : {}),
        ...(demo.reasoning === undefined ? {} : { reasoning_content: demo.reasoning }),
      },
      finish_reason: demo.finish,
      logprobs: null,
    }),
  );
  return { choices, usage: usageOf(request, demo) };
}

/** Splits text into at most `count` pieces at word boundaries (at least one piece). */
export function demoPieces(text: string, count: number): string[] {
  const words = text.split(/(?<= )/);
  const size = Math.max(1, Math.ceil(words.length / count));
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += size) pieces.push(words.slice(i, i + size).join(''));
  return pieces.length > 0 ? pieces : [''];
}

function choiceChunks(index: number, demo: DemoAnswer): ChatChunk[] {
  const chunk = (delta: ChunkChoice['delta'], finish: FinishReason | null = null): ChatChunk => ({
    choices: [{ index, delta, finish_reason: finish }],
  });
  const chunks = [chunk({ role: 'assistant' })];
  for (const piece of demo.reasoning === undefined ? [] : demoPieces(demo.reasoning, 2)) {
    chunks.push(chunk({ reasoning_content: piece }));
  }
  for (const piece of demo.content === null ? [] : demoPieces(demo.content, 4))
    chunks.push(chunk({ content: piece }));
  demo.toolCalls.forEach((call, callIndex) => {
    const { name, arguments: args } = call.function;
    chunks.push(
      chunk({
        tool_calls: [{ index: callIndex, id: call.id, type: 'function', function: { name, arguments: '' } }],
      }),
    );
    const half = Math.ceil(args.length / 2);
    for (const piece of [args.slice(0, half), args.slice(half)]) {
      if (piece !== '')
        chunks.push(chunk({ tool_calls: [{ index: callIndex, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, demo.finish));
  return chunks;
}

/** A streamed answer: role first, reasoning and content pieces, tool-call deltas, then the finish chunk. */
function stream(request: ChatRequest): { chunks: ChatChunk[]; usage: NormalizedUsage } {
  const demo = answer(request);
  return {
    chunks: indexes(request).flatMap((index) => choiceChunks(index, demo)),
    usage: usageOf(request, demo),
  };
}

/** The demo simulator's chat capability. */
export const demoChat = { complete, stream };
