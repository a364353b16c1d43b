/**
 * A non-streamed Anthropic Message → the convention's chat result. Documented shapes followed
 * (https://docs.anthropic.com/en/api/messages; SDK `Message`, `ContentBlock`): `content` is a list
 * of `text` (with optional `citations`), `thinking`, `redacted_thinking`, `tool_use`,
 * `server_tool_use` and `web_search_tool_result` blocks; `stop_reason`; `usage`.
 *
 * Text blocks are concatenated into `content`; `tool_use` blocks become `tool_calls` (id from the
 * block, `arguments` = JSON of `input`); thinking becomes `reasoning_content`; the JSON-output tool
 * of chat-output-format.ts becomes `content`; web results and web citations become `citations`.
 */
import type { ChatResult, ToolCall } from '../chat-types.ts';
import { CitationList, finishReasonOf, normalizeUsage } from './chat-mapping.ts';
import { JSON_OUTPUT_TOOL } from './chat-tools.ts';
import { parseDocumented } from './protocol-error.ts';
import {
  messageSchema,
  textBlockSchema,
  thinkingBlockSchema,
  toolUseBlockSchema,
  webSearchToolResultSchema,
} from './response-schemas.ts';

interface Collected {
  text: string[];
  reasoning: string[];
  toolCalls: ToolCall[];
  citations: CitationList;
}

/** Maps a `POST /v1/messages` JSON body; throws `UpstreamProtocolError` when it is not the documented shape. */
export function fromAnthropicResponse(json: unknown): ChatResult {
  const message = parseDocumented(messageSchema, json, 'message');
  const collected: Collected = { text: [], reasoning: [], toolCalls: [], citations: new CitationList() };
  message.content.forEach((block, i) => {
    collectBlock(block, `content.${i}`, collected);
  });
  const text = collected.text.join('');
  const { toolCalls } = collected;
  // A turn that "used a tool" only through the JSON-output tool is a finished answer, not a call.
  const finish = finishReasonOf(message.stop_reason);
  const result: ChatResult = {
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text !== '' || toolCalls.length === 0 ? text : null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(collected.reasoning.length > 0 ? { reasoning_content: collected.reasoning.join('') } : {}),
        },
        finish_reason: finish === 'tool_calls' && toolCalls.length === 0 ? 'stop' : finish,
        logprobs: null,
      },
    ],
    usage: normalizeUsage(message.usage),
  };
  if (collected.citations.size > 0) result.citations = collected.citations.list();
  return result;
}

function collectBlock(block: { type: string }, where: string, into: Collected): void {
  switch (block.type) {
    case 'text': {
      const text = parseDocumented(textBlockSchema, block, `text block ${where}`);
      into.text.push(text.text);
      for (const citation of text.citations ?? []) into.citations.add(citation.url, citation.title);
      return;
    }
    case 'thinking':
      into.reasoning.push(parseDocumented(thinkingBlockSchema, block, `thinking block ${where}`).thinking);
      return;
    case 'tool_use': {
      const use = parseDocumented(toolUseBlockSchema, block, `tool_use block ${where}`);
      const args = JSON.stringify(use.input ?? {});
      if (use.name === JSON_OUTPUT_TOOL) into.text.push(args);
      else
        into.toolCalls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: args } });
      return;
    }
    case 'web_search_tool_result': {
      const result = parseDocumented(
        webSearchToolResultSchema,
        block,
        `web_search_tool_result block ${where}`,
      );
      if (Array.isArray(result.content))
        for (const found of result.content) into.citations.add(found.url, found.title);
      return;
    }
    default:
      // redacted_thinking, server_tool_use and blocks of tools this adapter never enables carry nothing for the client.
      return;
  }
}
