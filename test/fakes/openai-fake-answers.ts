/**
 * What the fake OpenAI-compatible upstream answers, derived only from the request so tests can
 * predict every byte. Bodies follow OpenAI's documented shapes (Chat Completions object and chunk
 * object, Embeddings object, error codes guide), not the gateway's.
 *
 * Rules:
 * - text: `Echo: <last user message text>` (JSON `{"echo": …}` when `response_format` is
 *   json_object/json_schema); after a tool result (last message role `tool`):
 *   `Tool result received: <its content>`;
 * - tool calls: when `tools` is non-empty, `tool_choice` is not `none` and the last user message
 *   contains a tool's function name, one call per mentioned tool (in `tools` order), ids
 *   `call_fake_<i>`, arguments `{"input": "<first 40 characters of the user text>"}`;
 * - usage: prompt_tokens = ceil(characters of all message text / 4); completion_tokens =
 *   ceil(content / 4) + ceil(arguments / 4) per call + 16 reasoning tokens when `reasoning_effort`
 *   is set and not `none`; cached_tokens = 0 below 1024 prompt tokens, else 1024 plus whole
 *   128-token blocks (OpenAI's caching granularity);
 * - `web_search_options` adds one `url_citation` annotation (https://example.com/fake-source);
 * - quirk `reasoningContent` (DeepSeek/xAI style) adds `reasoning_content` `Thinking about: …`.
 */
import { Buffer } from 'node:buffer';

export type Json = Record<string, unknown>;

/** Where a streamed answer reports usage. */
export type UsageLocation =
  /** OpenAI: a last chunk with empty `choices`, only when `stream_options.include_usage` is true. */
  | 'stream-options'
  /** Groq: `x_groq.usage` on the chunk carrying `finish_reason` (and no standard usage chunk). */
  | 'x_groq'
  /** Mistral: `usage` on the chunk carrying `finish_reason`, whatever the request says. */
  | 'last-chunk';

export interface FakeQuirks {
  usage?: UsageLocation;
  reasoningContent?: boolean;
}

export const FAKE_CREATED = 1_700_000_000;
export const FAKE_REASONING_TOKENS = 16;
export const FAKE_CITATION_URL = 'https://example.com/fake-source';

export function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (asRecord(part)?.type === 'text' ? String(asRecord(part)?.text ?? '') : ''))
    .join('');
}

function messages(body: Json): Json[] {
  return Array.isArray(body.messages) ? body.messages.map((m) => asRecord(m) ?? {}) : [];
}

function lastUserText(body: Json): string {
  const user = messages(body).findLast((message) => message.role === 'user');
  return user === undefined ? '' : contentText(user.content);
}

export function promptTokens(body: Json): number {
  return fakeTokens(
    messages(body)
      .map((message) => contentText(message.content))
      .join(''),
  );
}

export function cachedTokens(prompt: number): number {
  return prompt < 1024 ? 0 : 1024 + Math.floor((prompt - 1024) / 128) * 128;
}

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function toolCalls(body: Json, userText: string): ToolCall[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length === 0 || body.tool_choice === 'none' || messages(body).at(-1)?.role === 'tool') return [];
  const names = tools
    .map((tool) => asRecord(asRecord(tool)?.function)?.name)
    .filter((name): name is string => typeof name === 'string' && userText.includes(name));
  return names.map((name, i) => ({
    id: `call_fake_${i}`,
    type: 'function',
    function: { name, arguments: JSON.stringify({ input: userText.slice(0, 40) }) },
  }));
}

/** The answer of a chat request, before it is shaped as a completion or as chunks. */
export interface FakeAnswer {
  content: string | null;
  reasoning: string | undefined;
  toolCalls: ToolCall[];
  annotations: Json[];
  finishReason: 'stop' | 'tool_calls';
  usage: Json;
}

function answerText(body: Json, userText: string): string {
  const last = messages(body).at(-1);
  const text =
    last?.role === 'tool' ? `Tool result received: ${contentText(last.content)}` : `Echo: ${userText}`;
  const format = asRecord(body.response_format)?.type;
  return format === 'json_object' || format === 'json_schema' ? JSON.stringify({ echo: text }) : text;
}

export function fakeAnswer(body: Json, quirks: FakeQuirks): FakeAnswer {
  const userText = lastUserText(body);
  const calls = toolCalls(body, userText);
  const content = calls.length > 0 ? null : answerText(body, userText);
  const effort = body.reasoning_effort;
  const reasoningTokens = typeof effort === 'string' && effort !== 'none' ? FAKE_REASONING_TOKENS : 0;
  const prompt = promptTokens(body);
  const completion =
    fakeTokens(content ?? '') +
    calls.reduce((sum, call) => sum + fakeTokens(call.function.arguments), 0) +
    reasoningTokens;
  const annotations =
    body.web_search_options === undefined || content === null
      ? []
      : [
          {
            type: 'url_citation',
            url_citation: {
              start_index: 0,
              end_index: content.length,
              title: 'Fake source',
              url: FAKE_CITATION_URL,
            },
          },
        ];
  return {
    content,
    reasoning:
      quirks.reasoningContent && reasoningTokens > 0 ? `Thinking about: ${userText.slice(0, 50)}` : undefined,
    toolCalls: calls,
    annotations,
    finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cachedTokens(prompt), audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: reasoningTokens,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  };
}

/** A non-streamed `chat.completion` object. */
export function chatCompletion(body: Json, answer: FakeAnswer): Json {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: FAKE_CREATED,
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.content,
          refusal: null,
          annotations: answer.annotations,
          ...(answer.reasoning === undefined ? {} : { reasoning_content: answer.reasoning }),
          ...(answer.toolCalls.length > 0 ? { tool_calls: answer.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/** Splits text into word-sized pieces (the way tokens trickle in). */
export function pieces(text: string): string[] {
  return text.split(/(?<= )/).filter((piece) => piece !== '');
}

/** The `data:` payloads of a streamed answer, in order (without the final `[DONE]`). */
export function chatChunks(body: Json, answer: FakeAnswer, quirks: FakeQuirks): Json[] {
  const location = quirks.usage ?? 'stream-options';
  const includeUsage = location === 'stream-options' && asRecord(body.stream_options)?.include_usage === true;
  const chunk = (delta: Json, finish: string | null = null, extra: Json = {}): Json => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: FAKE_CREATED,
    model: body.model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of pieces(answer.reasoning ?? '')) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(answer.content ?? '')) chunks.push(chunk({ content: piece }));
  if (answer.annotations.length > 0) chunks.push(chunk({ annotations: answer.annotations }));
  answer.toolCalls.forEach((call, index) => {
    const start = {
      index,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: '' },
    };
    chunks.push(chunk({ tool_calls: [start] }));
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  const finalExtra =
    location === 'x_groq'
      ? { x_groq: { id: 'req_fake', usage: { ...answer.usage, queue_time: 0.01, total_time: 0.02 } } }
      : location === 'last-chunk'
        ? { usage: answer.usage }
        : {};
  chunks.push(chunk({}, answer.finishReason, finalExtra));
  if (includeUsage) chunks.push({ ...chunk({}), choices: [], usage: answer.usage });
  return chunks;
}

/** Deterministic float32-exact vector for an input (so base64 and float answers decode equal). */
export function fakeVector(input: string, dimensions: number): number[] {
  let seed = 0;
  for (const char of input) seed = (seed * 31 + (char.codePointAt(0) ?? 0)) % 9973;
  return Array.from({ length: dimensions }, (_, i) => Math.fround(Math.sin(seed + i)));
}

function base64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, value] of vector.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes.toString('base64');
}

/** An embeddings `list` object; `encoding_format: base64` gives little-endian float32 base64 strings. */
export function embeddingResponse(body: Json): Json {
  const inputs = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 16;
  const base64 = body.encoding_format === 'base64';
  const tokens = inputs.reduce((sum, input) => sum + fakeTokens(input), 0);
  return {
    object: 'list',
    data: inputs.map((input, index) => {
      const vector = fakeVector(input, dimensions);
      return { object: 'embedding', index, embedding: base64 ? base64Float32(vector) : vector };
    }),
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
