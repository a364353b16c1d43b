/**
 * The documented shapes of what `POST /v1/messages` answers, as zod schemas: the Message object,
 * its content blocks, usage, and the stream events. Followed: the Messages API reference
 * (https://docs.anthropic.com/en/api/messages), streaming reference
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming) and the official SDK's
 * `Message`, `Usage`, `MessageDeltaUsage`, `RawMessageStreamEvent` types
 * (anthropic-sdk-typescript, src/resources/messages/messages.ts). Unknown block, delta and event
 * types are allowed through: Anthropic documents that it adds them over time.
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();

export const usageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
  output_tokens_details: z.object({ thinking_tokens: count }).nullish(),
});

/** `message_delta` usage: cumulative; input fields are null when unchanged. */
export const deltaUsageSchema = z.object({
  input_tokens: count.nullish(),
  output_tokens: count,
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
  output_tokens_details: z.object({ thinking_tokens: count }).nullish(),
});

export type AnthropicUsage = z.infer<typeof usageSchema>;
export type AnthropicDeltaUsage = z.infer<typeof deltaUsageSchema>;

/** Any content block: its own fields are checked by the block schemas below when it matters. */
const anyBlock = z.object({ type: z.string() }).loose();

export const messageSchema = z.object({
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.array(anyBlock),
  stop_reason: z.string().nullable(),
  usage: usageSchema,
});

/** A citation inside a text block; only web results carry a `url`. */
const citationSchema = z
  .object({ type: z.string(), url: z.string().optional(), title: z.string().nullish() })
  .loose();

export const textBlockSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  citations: z.array(citationSchema).nullish(),
});
export const thinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string() });
export const toolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
const webSearchResultSchema = z.object({ type: z.string(), url: z.string(), title: z.string().nullish() });
export const webSearchToolResultSchema = z.object({
  type: z.literal('web_search_tool_result'),
  // An array of results, or an error object (`web_search_tool_result_error`) that cites nothing.
  content: z.union([z.array(webSearchResultSchema), z.object({ type: z.string() }).loose()]),
});

export type CitationLike = z.infer<typeof citationSchema>;

export const streamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: z.object({ usage: usageSchema }) }),
  z.object({ type: z.literal('content_block_start'), index: count, content_block: anyBlock }),
  z.object({
    type: z.literal('content_block_delta'),
    index: count,
    delta: z.object({ type: z.string() }).loose(),
  }),
  z.object({ type: z.literal('content_block_stop'), index: count }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: deltaUsageSchema,
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }),
]);

export type AnthropicStreamEvent = z.infer<typeof streamEventSchema>;

export const textDeltaSchema = z.object({ type: z.literal('text_delta'), text: z.string() });
export const inputJsonDeltaSchema = z.object({
  type: z.literal('input_json_delta'),
  partial_json: z.string(),
});
export const thinkingDeltaSchema = z.object({ type: z.literal('thinking_delta'), thinking: z.string() });
export const citationsDeltaSchema = z.object({
  type: z.literal('citations_delta'),
  citation: citationSchema,
});
