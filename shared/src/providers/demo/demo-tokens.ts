/**
 * The demo provider's token rule, documented so that demo costs are predictable:
 * tokens = ceil(characters / 4), counted over all message text (string contents, text parts,
 * tool-call names and arguments) for input, and over the generated text (answer, reasoning,
 * tool-call arguments) for output.
 */
import type { ChatMessage } from '../chat-types.ts';

/** ceil(characters / 4); 0 for the empty string. */
export function demoTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** All text of one message that the token rule counts. */
export function messageText(message: ChatMessage): string {
  let text = '';
  if (typeof message.content === 'string') text += message.content;
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (part.type === 'text') text += part.text;
  }
  for (const call of message.tool_calls ?? []) text += call.function.name + call.function.arguments;
  return text;
}

/** Input tokens of a conversation: the rule applied to the text of all messages together. */
export function demoInputTokens(messages: readonly ChatMessage[]): number {
  let characters = 0;
  for (const message of messages) characters += messageText(message).length;
  return Math.ceil(characters / 4);
}
