/**
 * What the fake Anthropic upstream answers, derived only from the request (no clock, no randomness),
 * in Anthropic's documented wire shapes: the Message object of `POST /v1/messages`
 * (https://docs.anthropic.com/en/api/messages) and its streamed event sequence
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming): message_start, per block
 * content_block_start / ping (after the first start) / deltas / content_block_stop, message_delta,
 * message_stop.
 *
 * Rules, so tests can predict answers:
 * - text: `Echo: <text of the last user turn>`, plus ` [N image(s), M document(s)]` when the turn has media;
 * - when the last user turn holds `tool_result` blocks: `Tool result: <their text joined by "; ">`;
 * - a tool call (stop_reason `tool_use`) when `tool_choice` is `any` or `tool` (the named tool, or
 *   the first), or when a client tool's name appears in the last user text (that tool) and
 *   `tool_choice` is not `none`; its input has every schema property filled: strings with the
 *   last user text, numbers with its word count, booleans true, enums their first value;
 * - `output_config.format` json_schema: the text is the JSON of a value built the same way;
 * - `thinking` enabled: a thinking block `Thinking about: <last user text>` comes first;
 * - a `web_search_*` tool: a server_tool_use block, a web_search_tool_result with two results
 *   (https://example.com/fake-result-1 and -2) and the text cites the first;
 * - `POST /v1/messages/count_tokens`: `{input_tokens}` counted as below;
 * - usage: input_tokens = whitespace-separated words of every text in system and messages (at
 *   least 1); output_tokens = words of generated text, thinking and tool-input JSON (at least 1);
 *   cache_read_input_tokens = the fake's `cacheReadInputTokens` option;
 * - `stop_sequences`: the text is cut before the first one found (stop_reason `stop_sequence`);
 *   `max_tokens`: text words beyond it are dropped (stop_reason `max_tokens`).
 */

import { z } from 'zod';

/** Any content block, tool or option object: its `type` is checked, the rest where the fake uses it. */
const blockSchema = z.object({ type: z.string() }).loose();
export type Block = z.infer<typeof blockSchema>;

/**
 * The request's essential shape. Strict like the real API, which answers 400 "Extra inputs are not
 * permitted" for an unknown top-level field.
 */
export const fakeRequestSchema = z.strictObject({
  model: z.string().min(1),
  max_tokens: z.number().int().nonnegative(),
  messages: z
    .array(
      z.strictObject({
        role: z.enum(['user', 'assistant']),
        content: z.union([z.string(), z.array(blockSchema)]),
      }),
    )
    .min(1),
  system: z
    .union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }).loose())])
    .optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().optional(),
  stop_sequences: z.array(z.string()).optional(),
  tools: z.array(z.object({ name: z.string() }).loose()).optional(),
  tool_choice: blockSchema.optional(),
  thinking: z.object({ type: z.string(), budget_tokens: z.number().int().optional() }).optional(),
  output_config: z
    .object({
      format: z
        .object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
        .optional(),
    })
    .optional(),
  metadata: z.strictObject({ user_id: z.string().max(256).optional() }).optional(),
});
export type FakeRequest = z.infer<typeof fakeRequestSchema>;

export interface FakeMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Block[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: Record<string, unknown>;
}

export const FAKE_SEARCH_RESULTS = [
  { url: 'https://example.com/fake-result-1', title: 'Fake result one' },
  { url: 'https://example.com/fake-result-2', title: 'Fake result two' },
];

export function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) => {
    if (!isRecord(block)) return [];
    if (block.type === 'text' && typeof block.text === 'string') return [block.text];
    if (block.type === 'tool_result') return texts(block.content);
    return [];
  });
}

function lastUserTurn(request: FakeRequest): Block[] {
  const turn = request.messages.findLast((m) => m.role === 'user');
  if (turn === undefined) return [];
  return typeof turn.content === 'string' ? [{ type: 'text', text: turn.content }] : turn.content;
}

/** A value matching a JSON schema, filled from the prompt (see the rules above). */
export function sampleFor(schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return text;
    case 'number':
    case 'integer':
      return words(text);
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const props = schema.properties;
      if (!isRecord(props)) return {};
      return Object.fromEntries(Object.entries(props).map(([key, sub]) => [key, sampleFor(sub, text)]));
    }
    default:
      return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function chosenTool(
  request: FakeRequest,
  text: string,
): { name: string; input_schema?: unknown } | undefined {
  const tools = (request.tools ?? []).filter((t) => isRecord(t.input_schema));
  const choice = request.tool_choice;
  if (tools.length === 0 || choice?.type === 'none') return undefined;
  if (choice?.type === 'tool') return tools.find((t) => t.name === choice.name);
  if (choice?.type === 'any') return tools[0];
  return tools.find((t) => text.includes(t.name));
}

function answerText(turn: Block[], text: string): string {
  const results = turn.filter((b) => b.type === 'tool_result');
  if (results.length > 0) return `Tool result: ${results.flatMap((r) => texts(r.content)).join('; ')}`;
  const images = turn.filter((b) => b.type === 'image').length;
  const documents = turn.filter((b) => b.type === 'document').length;
  const media = images + documents > 0 ? ` [${images} image(s), ${documents} document(s)]` : '';
  return `Echo: ${text}${media}`;
}

/** The body's text block, cut by `stop_sequences` and `max_tokens`. */
function finalText(request: FakeRequest, text: string, spent: number) {
  const stop = (request.stop_sequences ?? []).find((s) => s !== '' && text.includes(s));
  if (stop !== undefined)
    return { text: text.slice(0, text.indexOf(stop)), stopReason: 'stop_sequence', stop };
  const room = request.max_tokens - spent;
  const parts = text.split(/(?<=\s)/);
  if (words(text) <= room) return { text, stopReason: 'end_turn', stop: null };
  return { text: parts.slice(0, Math.max(room, 0)).join(''), stopReason: 'max_tokens', stop: null };
}

interface Answer {
  blocks: Block[];
  stopReason: string;
  stopSequence: string | null;
}

/** The Message the fake answers for this request. */
export function buildMessage(request: FakeRequest, seq: number, cacheReadInputTokens: number): FakeMessage {
  const turn = lastUserTurn(request);
  const userText = texts(turn.filter((b) => b.type === 'text')).join(' ');
  const content: Block[] = [];
  if (request.thinking?.type === 'enabled' || request.thinking?.type === 'adaptive') {
    content.push({ type: 'thinking', thinking: `Thinking about: ${userText}`, signature: `sig_fake_${seq}` });
  }
  const answer = toolAnswer(request, seq, userText) ?? textAnswer(request, seq, turn, outputWords(content));
  content.push(...answer.blocks);
  return {
    id: `msg_fake_${seq}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: answer.stopReason,
    stop_sequence: answer.stopSequence,
    usage: usage(request, content, cacheReadInputTokens),
  };
}

function toolAnswer(request: FakeRequest, seq: number, userText: string): Answer | undefined {
  const tool = chosenTool(request, userText);
  if (tool === undefined) return undefined;
  const input = sampleFor(tool.input_schema, userText);
  const block = { type: 'tool_use', id: `toolu_fake_${seq}_0`, name: tool.name, input };
  return { blocks: [block], stopReason: 'tool_use', stopSequence: null };
}

function textAnswer(request: FakeRequest, seq: number, turn: Block[], spent: number): Answer {
  const userText = texts(turn.filter((b) => b.type === 'text')).join(' ');
  const search = (request.tools ?? []).some(
    (t) => typeof t.type === 'string' && t.type.startsWith('web_search_'),
  );
  const blocks = search ? searchBlocks(seq, userText) : [];
  const schema = request.output_config?.format?.schema;
  const wanted =
    schema === undefined ? answerText(turn, userText) : JSON.stringify(sampleFor(schema, userText));
  const cut = finalText(request, wanted, spent);
  blocks.push({ type: 'text', text: cut.text, ...(search ? { citations: [webCitation(seq)] } : {}) });
  return { blocks, stopReason: cut.stopReason, stopSequence: cut.stop };
}

function searchBlocks(seq: number, query: string): Block[] {
  const id = `srvtoolu_fake_${seq}`;
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: FAKE_SEARCH_RESULTS.map((r, i) => ({
        type: 'web_search_result',
        url: r.url,
        title: r.title,
        encrypted_content: `enc_${seq}_${i}`,
        page_age: null,
      })),
    },
  ];
}

function webCitation(seq: number): Block {
  const first = FAKE_SEARCH_RESULTS[0] ?? { url: '', title: '' };
  return {
    type: 'web_search_result_location',
    url: first.url,
    title: first.title,
    cited_text: 'Fake cited text',
    encrypted_index: `idx_${seq}`,
  };
}

function outputWords(content: Block[]): number {
  return content.reduce((sum, block) => {
    if (block.type === 'text' && typeof block.text === 'string') return sum + words(block.text);
    if (block.type === 'thinking' && typeof block.thinking === 'string') return sum + words(block.thinking);
    if (block.type === 'tool_use') return sum + words(JSON.stringify(block.input));
    return sum;
  }, 0);
}

/** Input tokens of a request: words of every text in system and messages (at least 1). */
export function inputTokens(request: Pick<FakeRequest, 'system' | 'messages'>): number {
  const input = [...texts(request.system), ...request.messages.flatMap((m) => texts(m.content))];
  return Math.max(
    1,
    input.reduce((sum, t) => sum + words(t), 0),
  );
}

function usage(request: FakeRequest, content: Block[], cacheRead: number): Record<string, unknown> {
  const searches = content.some((b) => b.type === 'server_tool_use') ? 1 : 0;
  return {
    input_tokens: inputTokens(request),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cacheRead,
    output_tokens: Math.max(1, outputWords(content)),
    ...(searches > 0 ? { server_tool_use: { web_search_requests: searches } } : {}),
  };
}
