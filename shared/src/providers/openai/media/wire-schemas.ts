/**
 * The documented shapes of OpenAI's media answers, as zod schemas. Only the fields the gateway
 * reads are declared; unknown fields are ignored, so new upstream fields never break parsing.
 *
 * Sources: openai-node `ImagesResponse` / `Image` (resources/images.ts: `created`, `data[]` of
 * `{b64_json?, url?, revised_prompt?}`, `usage {input_tokens, output_tokens, …}` for GPT image
 * models); `TranscriptionVerbose` (`text`, `language`, `duration`, `words[] {word, start, end}`,
 * `segments[]`) and `Transcription` (`text`, `usage` as `{type: 'duration', seconds}` or
 * `{type: 'tokens', …}`) in resources/audio/transcriptions.ts; `Video` (resources/videos.ts:
 * `id`, `object: 'video'`, `status` queued|in_progress|completed|failed, `progress`, `error`
 * `{code, message} | null`). Groq's transcription answers are the same verbose_json shape (plus
 * `x_groq`, ignored).
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();

export const wireImagesSchema = z.object({
  created: z.number(),
  data: z.array(
    z.object({
      b64_json: z.string().nullish(),
      url: z.string().nullish(),
      revised_prompt: z.string().nullish(),
    }),
  ),
  usage: z.object({ input_tokens: count, output_tokens: count }).nullish(),
});

const wireWordSchema = z.object({ word: z.string(), start: z.number(), end: z.number() });

/** `response_format: verbose_json` (whisper-1, Groq whisper-large-v3*). */
export const wireVerboseTranscriptionSchema = z.object({
  text: z.string(),
  language: z.string(),
  duration: z.number().nonnegative(),
  words: z.array(wireWordSchema).nullish(),
});

/** `response_format: json` (gpt-4o-transcribe, gpt-4o-mini-transcribe). */
export const wireJsonTranscriptionSchema = z.object({
  text: z.string(),
  usage: z
    .union([
      z.object({ type: z.literal('duration'), seconds: z.number().nonnegative() }),
      z.object({ type: z.literal('tokens') }),
    ])
    .nullish(),
});

export const wireVideoSchema = z.object({
  id: z.string().min(1),
  object: z.literal('video'),
  status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
  progress: z.number().nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type WireVideo = z.infer<typeof wireVideoSchema>;
