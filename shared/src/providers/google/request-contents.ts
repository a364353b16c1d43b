/**
 * Chat messages to Gemini `contents` and `systemInstruction`, per
 * https://ai.google.dev/gemini-api/docs/text-generation#system-instructions and
 * https://ai.google.dev/gemini-api/docs/function-calling (functionCall parts in the model turn,
 * functionResponse parts in the following user turn).
 *
 * Roles: user -> `user`, assistant -> `model`, tool -> a `user` turn of functionResponse parts;
 * system and developer messages join the system instruction. Consecutive turns of the same role
 * are merged, because Gemini expects user and model turns to alternate.
 */
import type { ChatMessage, ToolCall } from '../chat-types.ts';
import { UnsupportedFeatureError } from './errors.ts';
import { partsOf, textOf } from './request-parts.ts';
import { SKIP_SIGNATURE, signatureOf } from './tool-call-id.ts';
import type { GeminiContent, GeminiGenerateContentRequest, GeminiPart } from './wire-request.ts';

/** Options that depend on the target model. */
export interface ContentsOptions {
  /** Gemini 3 and later reject a function call turn without a thought signature. */
  requiresThoughtSignatures: boolean;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseArguments(call: ToolCall): Record<string, unknown> {
  const args = call.function.arguments.trim() === '' ? {} : parseJson(call.function.arguments);
  if (!isJsonObject(args)) {
    throw new UnsupportedFeatureError(
      null,
      `Tool call ${call.function.name}: arguments must be a JSON object.`,
    );
  }
  return args;
}

function functionCallParts(calls: ToolCall[], options: ContentsOptions): GeminiPart[] {
  const parts: GeminiPart[] = calls.map((call) => {
    const part: GeminiPart = { functionCall: { name: call.function.name, args: parseArguments(call) } };
    const signature = signatureOf(call.id);
    if (signature) part.thoughtSignature = signature;
    return part;
  });
  // Only the first call of a step carries the signature; history from another model has none.
  const first = parts[0];
  if (options.requiresThoughtSignatures && first && !parts.some((p) => p.thoughtSignature)) {
    first.thoughtSignature = SKIP_SIGNATURE;
  }
  return parts;
}

/** Gemini's functionResponse.response must be an object: a JSON object as is, anything else wrapped. */
function responseOf(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return isJsonObject(parsed) ? parsed : { content: text };
}

function toolResponsePart(message: ChatMessage, callNames: ReadonlyMap<string, string>): GeminiPart {
  const name = (message.tool_call_id && callNames.get(message.tool_call_id)) || message.name;
  if (!name) {
    throw new UnsupportedFeatureError(
      null,
      'A tool message must answer a tool call of an earlier assistant message (tool_call_id).',
    );
  }
  return { functionResponse: { name, response: responseOf(textOf(message.content, 'tool')) } };
}

function turnOf(
  message: ChatMessage,
  callNames: Map<string, string>,
  options: ContentsOptions,
): GeminiContent | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: partsOf(message.content) };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      for (const call of calls) callNames.set(call.id, call.function.name);
      const text = textOf(message.content, 'assistant');
      const parts: GeminiPart[] = text.length > 0 ? [{ text }] : [];
      return { role: 'model', parts: [...parts, ...functionCallParts(calls, options)] };
    }
    case 'tool':
      return { role: 'user', parts: [toolResponsePart(message, callNames)] };
    default:
      return undefined;
  }
}

/** Appends a turn, merging it into the previous one when both have the same role. */
function pushTurn(contents: GeminiContent[], turn: GeminiContent): void {
  if (turn.parts.length === 0) return;
  const last = contents.at(-1);
  if (last && last.role === turn.role) last.parts.push(...turn.parts);
  else contents.push(turn);
}

/** The conversation as Gemini `contents` plus the system instruction. */
export function contentsOf(
  messages: readonly ChatMessage[],
  options: ContentsOptions,
): Pick<GeminiGenerateContentRequest, 'contents' | 'systemInstruction'> {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content, message.role);
      if (text.length > 0) system.push(text);
      continue;
    }
    const turn = turnOf(message, callNames, options);
    if (turn) pushTurn(contents, turn);
  }
  if (contents.length === 0) {
    throw new UnsupportedFeatureError(
      null,
      'Gemini needs at least one user or assistant message besides system ones.',
    );
  }
  const systemInstruction = system.length > 0 ? { parts: [{ text: system.join('\n\n') }] } : undefined;
  return systemInstruction ? { contents, systemInstruction } : { contents };
}
