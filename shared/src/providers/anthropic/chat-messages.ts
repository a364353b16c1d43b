/**
 * Chat messages → the Anthropic `system` parameter and `messages` array. Documented rules followed
 * (https://docs.anthropic.com/en/api/messages, .../tool-use/implement-tool-use): there is no system
 * role in `messages`, so system and developer messages become top-level `system` text blocks in
 * order; assistant tool calls are `tool_use` blocks; results go back as `tool_result` blocks in a
 * user turn, before any text of that turn; turns alternate user/assistant, so consecutive messages
 * of one role are merged into one turn.
 */
import type { ChatMessage, ToolCall } from '../chat-types.ts';
import { mediaBlocks, textBlocks } from './chat-content.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type {
  AssistantBlock,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
  UserBlock,
} from './wire-types.ts';

export interface AnthropicConversation {
  system: TextBlockParam[];
  messages: MessageParam[];
}

/** Splits the conversation into `system` and alternating, merged `messages`. */
export function toAnthropicConversation(messages: readonly ChatMessage[]): AnthropicConversation {
  const system: TextBlockParam[] = [];
  const turns: MessageParam[] = [];
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        // Anthropic has one system prompt: a late system message is hoisted, keeping its order.
        system.push(...textBlocks(message.content, `${param}.content`));
        return;
      case 'user':
        appendUser(turns, mediaBlocks(message.content, `${param}.content`));
        return;
      case 'assistant':
        appendAssistant(turns, assistantBlocks(message, param));
        return;
      case 'tool':
        appendUser(turns, [toolResultBlock(message, param)]);
        return;
    }
  });
  return { system, messages: turns };
}

function appendUser(turns: MessageParam[], blocks: UserBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === 'user') last.content = toolResultsFirst([...last.content, ...blocks]);
  else turns.push({ role: 'user', content: blocks });
}

function appendAssistant(turns: MessageParam[], blocks: AssistantBlock[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === 'assistant') last.content = [...last.content, ...blocks];
  else turns.push({ role: 'assistant', content: blocks });
}

// Anthropic requires the tool results of a user turn to precede its other content.
function toolResultsFirst(blocks: UserBlock[]): UserBlock[] {
  return [
    ...blocks.filter((b) => b.type === 'tool_result'),
    ...blocks.filter((b) => b.type !== 'tool_result'),
  ];
}

function assistantBlocks(message: ChatMessage, param: string): AssistantBlock[] {
  const text: AssistantBlock[] = textBlocks(message.content, `${param}.content`);
  const calls = (message.tool_calls ?? []).map((call, j) => toolUseBlock(call, `${param}.tool_calls[${j}]`));
  return [...text, ...calls];
}

function toolUseBlock(call: ToolCall, param: string): ToolUseBlockParam {
  return {
    type: 'tool_use',
    id: call.id,
    name: call.function.name,
    input: parseArguments(call.function.arguments, `${param}.function.arguments`),
  };
}

/** Anthropic takes tool input as an object, so the JSON text of the convention is parsed here. */
function parseArguments(text: string, param: string): Record<string, unknown> {
  // Some clients send '' for a call without arguments; it means the same as '{}'.
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnsupportedFeatureError(
      param,
      'Tool-call arguments must be a JSON object; the text is not JSON.',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UnsupportedFeatureError(param, 'Tool-call arguments must be a JSON object.');
  }
  return { ...value };
}

function toolResultBlock(message: ChatMessage, param: string): ToolResultBlockParam {
  if (message.tool_call_id === undefined || message.tool_call_id === '') {
    throw new UnsupportedFeatureError(
      `${param}.tool_call_id`,
      'A tool message needs the `tool_call_id` it answers.',
    );
  }
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: message.tool_call_id };
  if (typeof message.content === 'string') {
    if (message.content !== '') block.content = message.content;
    return block;
  }
  const content = mediaBlocks(message.content, `${param}.content`);
  if (content.length > 0) block.content = content;
  return block;
}
