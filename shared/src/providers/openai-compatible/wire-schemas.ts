/**
 * The documented shapes of OpenAI-compatible answers, as zod schemas. Only the fields the gateway
 * reads are declared; unknown fields are ignored, so new upstream fields never break parsing.
 *
 * Sources: openai-node `ChatCompletion`, `ChatCompletionChunk`, `CompletionUsage`,
 * `CreateEmbeddingResponse` (resources/chat/completions, resources/embeddings); DeepSeek's
 * Create Chat Completion response (`reasoning_content`, `prompt_cache_hit_tokens`); xAI's chat
 * completions reference (`reasoning_content`, top-level `citations` URLs); Mistral's
 * ChatCompletionResponse (content as a string or as chunks `text` / `thinking`, tool-call
 * `arguments` as a string or an object, finish reasons incl. `model_length` and `error`); Groq's
 * chat completion object (`message.reasoning`, `x_groq.usage` on the last stream chunk).
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();

/** Token usage; every detail is optional because each upstream reports a different subset. */
export const wireUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count.nullish(),
  total_tokens: count.nullish(),
  prompt_tokens_details: z.object({ cached_tokens: count.nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count.nullish() }).nullish(),
  /** DeepSeek's context-cache hits (part of `prompt_tokens`). */
  prompt_cache_hit_tokens: count.nullish(),
});
export type WireUsage = z.infer<typeof wireUsageSchema>;

/** Mistral content chunk: `{type:'text', text}` or `{type:'thinking', thinking:[{type:'text', text}]}`. */
const contentChunkSchema = z.object({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.array(z.object({ type: z.string().optional(), text: z.string().optional() })).optional(),
});
export type WireContentChunk = z.infer<typeof contentChunkSchema>;

export const wireContentSchema = z.union([z.string(), z.array(contentChunkSchema)]).nullish();
export type WireContent = z.infer<typeof wireContentSchema>;

/** Mistral may send tool-call arguments as an already parsed object. */
const argumentsSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

const toolCallSchema = z.object({
  id: z.string(),
  type: z.string().optional(),
  function: z.object({ name: z.string(), arguments: argumentsSchema }),
});

const annotationSchema = z.object({
  type: z.string(),
  url_citation: z.object({ url: z.string(), title: z.string().nullish() }).optional(),
});
export type WireAnnotation = z.infer<typeof annotationSchema>;

/** xAI (and Perplexity-style upstreams) list sources as URLs at the top level. */
const topLevelCitationsSchema = z
  .array(z.union([z.string(), z.object({ url: z.string(), title: z.string().nullish() })]))
  .nullish();
export type WireCitations = z.infer<typeof topLevelCitationsSchema>;

/** Reasoning text: DeepSeek and xAI `reasoning_content`; Groq `reasoning`. Other shapes are ignored. */
const reasoningSchema = z
  .unknown()
  .transform((value) => (typeof value === 'string' ? value : undefined))
  .optional();

const logprobsSchema = z.record(z.string(), z.unknown()).nullish();

export const wireCompletionSchema = z.object({
  choices: z.array(
    z.object({
      index: count,
      message: z.object({
        content: wireContentSchema,
        refusal: z.string().nullish(),
        reasoning_content: reasoningSchema,
        reasoning: reasoningSchema,
        tool_calls: z.array(toolCallSchema).nullish(),
        annotations: z.array(annotationSchema).nullish(),
      }),
      finish_reason: z.string().nullish(),
      logprobs: logprobsSchema,
    }),
  ),
  usage: wireUsageSchema.nullish(),
  citations: topLevelCitationsSchema,
});
export type WireCompletion = z.infer<typeof wireCompletionSchema>;

const toolCallDeltaSchema = z.object({
  index: count.optional(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: argumentsSchema.nullish() }).nullish(),
});
export type WireToolCallDelta = z.infer<typeof toolCallDeltaSchema>;

export const wireChunkSchema = z.object({
  choices: z.array(
    z.object({
      index: count,
      delta: z
        .object({
          role: z.string().nullish(),
          content: wireContentSchema,
          refusal: z.string().nullish(),
          reasoning_content: reasoningSchema,
          reasoning: reasoningSchema,
          tool_calls: z.array(toolCallDeltaSchema).nullish(),
          annotations: z.array(annotationSchema).nullish(),
        })
        // Some upstreams send a final choice with no delta at all.
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: wireUsageSchema.nullish(),
  x_groq: z.object({ usage: wireUsageSchema.nullish() }).nullish(),
  citations: topLevelCitationsSchema,
});
export type WireChunk = z.infer<typeof wireChunkSchema>;

/** The error object inside an error body or an in-stream error event. */
export const wireErrorSchema = z.object({
  message: z.string().nullish(),
  type: z.string().nullish(),
  code: z.union([z.string(), z.number()]).nullish(),
});

export const wireEmbeddingsSchema = z.object({
  data: z.array(z.object({ index: count, embedding: z.union([z.array(z.number()), z.string()]) })),
  usage: z.object({ prompt_tokens: count, total_tokens: count.nullish() }).nullish(),
});
export type WireEmbeddings = z.infer<typeof wireEmbeddingsSchema>;
