/**
 * The parts of the Anthropic Messages request body this adapter writes, as documented in the
 * Messages API reference (https://docs.anthropic.com/en/api/messages) and the official TypeScript
 * SDK's `MessageCreateParams` (anthropic-sdk-typescript, src/resources/messages/messages.ts).
 */

export interface TextBlockParam {
  type: 'text';
  text: string;
}

export type ImageSource =
  | { type: 'url'; url: string }
  | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string };

export interface ImageBlockParam {
  type: 'image';
  source: ImageSource;
}

export interface DocumentBlockParam {
  type: 'document';
  source: { type: 'base64'; media_type: 'application/pdf'; data: string };
  title?: string;
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (TextBlockParam | ImageBlockParam | DocumentBlockParam)[];
}

/** What a user turn may hold (text, media, tool results). */
export type UserBlock = TextBlockParam | ImageBlockParam | DocumentBlockParam | ToolResultBlockParam;
/** What an assistant turn may hold as input (earlier answers, with their tool calls). */
export type AssistantBlock = TextBlockParam | ToolUseBlockParam;

export type MessageParam =
  | { role: 'user'; content: UserBlock[] }
  | { role: 'assistant'; content: AssistantBlock[] };

export interface CustomTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
}

export interface WebSearchTool {
  type: 'web_search_20250305';
  name: 'web_search';
  max_uses: number;
  user_location?: {
    type: 'approximate';
    city?: string;
    region?: string;
    country?: string;
    timezone?: string;
  };
}

export type ToolParam = CustomTool | WebSearchTool;

export type ToolChoiceParam =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface ThinkingParam {
  type: 'enabled';
  budget_tokens: number;
}

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: TextBlockParam[];
  stream?: boolean;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  thinking?: ThinkingParam;
  output_config?: { format: { type: 'json_schema'; schema: Record<string, unknown> } };
  metadata?: { user_id: string };
}
